// Credo module registering the Map-backed storage and marking a fresh store as current.
import { InjectionSymbols, StorageUpdateService, UpdateAssistant } from "@credo-ts/core";
import { MapStorageService } from "./map_storage.mjs";

/** Registers MapStorageService under InjectionSymbols.StorageService. */
export class MapStorageModule {
  constructor(storage = new MapStorageService()) {
    this.storage = storage;
  }

  register(dependencyManager) {
    dependencyManager.registerInstance(
      InjectionSymbols.StorageService,
      this.storage,
    );
  }

  // A fresh store has no storage version record; without one Credo assumes 0.1 and
  // aborts initialize with "storage is not up to date".
  async initialize(agentContext) {
    const updates = agentContext.dependencyManager.resolve(
      StorageUpdateService,
    );
    if (!(await updates.hasStorageVersionRecord(agentContext))) {
      await updates.setCurrentStorageVersion(
        agentContext,
        UpdateAssistant.frameworkStorageVersion,
      );
    }
  }
}
