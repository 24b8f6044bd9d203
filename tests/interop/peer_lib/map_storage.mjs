// Map-backed Credo StorageService shared by the interop peers (credo_peer, oid4vc_peer): records
// live in process memory only. It mirrors the semantics of Credo's Askar storage (serialize on
// write, deserialize on read, tag queries with $and / $or / $not, array tags = "contains all").
//
// It imports nothing: each peer passes its own `@credo-ts/core` (its node_modules sit beside it,
// and a second copy of core would break the agent):
//   import * as core from "@credo-ts/core";
//   const { MapStorageModule } = mapStorage(core);

/** True when the record tags satisfy a Credo tag query. */
export function tagsMatch(tags, query) {
  for (const [key, value] of Object.entries(query ?? {})) {
    if (key === "$and") {
      if (!value.every((sub) => tagsMatch(tags, sub))) return false;
    } else if (key === "$or") {
      if (value.length > 0 && !value.some((sub) => tagsMatch(tags, sub))) {
        return false;
      }
    } else if (key === "$not") {
      if (value && tagsMatch(tags, value)) return false;
    } else if (value === undefined) {
      // undefined means "no constraint", as in Askar's query transform
    } else if (Array.isArray(value)) {
      const tagValue = tags[key];
      if (
        !Array.isArray(tagValue) || !value.every((v) => tagValue.includes(v))
      ) return false;
    } else if (value === null) {
      if (tags[key] !== undefined && tags[key] !== null) return false;
    } else if (tags[key] !== value) {
      return false;
    }
  }
  return true;
}

/** The storage service and the module registering it, on the caller's `@credo-ts/core`. */
export function mapStorage(core) {
  const {
    InjectionSymbols,
    JsonTransformer,
    RecordDuplicateError,
    RecordNotFoundError,
    StorageUpdateService,
    UpdateAssistant,
  } = core;

  /** In-memory StorageService keyed per agent context and record type. */
  class MapStorageService {
    /** @type {Map<string, Map<string, {value: string, tags: object, type: string}>>} */
    #contexts = new Map();

    #store(agentContext) {
      const key = agentContext.contextCorrelationId ?? "default";
      let store = this.#contexts.get(key);
      if (!store) {
        store = new Map();
        this.#contexts.set(key, store);
      }
      return store;
    }

    #key(type, id) {
      return `${type}\u0000${id}`;
    }

    #toInstance(entry, recordClass) {
      const instance = JsonTransformer.deserialize(entry.value, recordClass);
      instance.id = entry.id;
      instance.replaceTags(structuredClone(entry.tags));
      return instance;
    }

    #entry(record) {
      return {
        id: record.id,
        type: record.type,
        value: JsonTransformer.serialize(record),
        tags: structuredClone(record.getTags()),
      };
    }

    async save(agentContext, record) {
      record.updatedAt = new Date();
      const store = this.#store(agentContext);
      const key = this.#key(record.type, record.id);
      if (store.has(key)) {
        throw new RecordDuplicateError(
          `Record with id ${record.id} already exists`,
          { recordType: record.type },
        );
      }
      store.set(key, this.#entry(record));
    }

    async update(agentContext, record) {
      record.updatedAt = new Date();
      const store = this.#store(agentContext);
      const key = this.#key(record.type, record.id);
      if (!store.has(key)) {
        throw new RecordNotFoundError(`record with id ${record.id} not found.`, {
          recordType: record.type,
        });
      }
      store.set(key, this.#entry(record));
    }

    async delete(agentContext, record) {
      await this.deleteById(agentContext, { type: record.type }, record.id);
    }

    async deleteById(agentContext, recordClass, id) {
      if (!this.#store(agentContext).delete(this.#key(recordClass.type, id))) {
        throw new RecordNotFoundError(`record with id ${id} not found.`, {
          recordType: recordClass.type,
        });
      }
    }

    async getById(agentContext, recordClass, id) {
      const entry = this.#store(agentContext).get(
        this.#key(recordClass.type, id),
      );
      if (!entry) {
        throw new RecordNotFoundError(`record with id ${id} not found.`, {
          recordType: recordClass.type,
        });
      }
      return this.#toInstance(entry, recordClass);
    }

    async getAll(agentContext, recordClass) {
      return this.findByQuery(agentContext, recordClass, {});
    }

    async findByQuery(agentContext, recordClass, query, queryOptions) {
      let entries = [...this.#store(agentContext).values()].filter(
        (entry) => entry.type === recordClass.type && tagsMatch(entry.tags, query),
      );
      const offset = queryOptions?.offset ?? 0;
      entries = entries.slice(
        offset,
        queryOptions?.limit === undefined ? undefined : offset + queryOptions.limit,
      );
      return entries.map((entry) => this.#toInstance(entry, recordClass));
    }
  }

  /** Registers MapStorageService under InjectionSymbols.StorageService. */
  class MapStorageModule {
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

  return { MapStorageService, MapStorageModule };
}
