/**
 * did:peer:4 long forms remembered in KV (`keys.peerLongForm(shortDid)`), so that a short form
 * resolves on every instance once any instance has seen its long form. A bounded in-memory map
 * in front saves repeated reads and writes. Entries do not expire: a peer relationship may use a
 * short form for years after its long form was exchanged.
 */
import { keys } from "../../../kv/mod.ts";
import { Lru } from "../../../base/mod.ts";
import type { PeerLongFormStore } from "./store.ts";

/** KV-backed `PeerLongFormStore`. */
export class KvPeerLongFormStore implements PeerLongFormStore {
  readonly #kv: Deno.Kv;
  readonly #memory = new Lru<string>(5_000);

  /** Stores in `kv`. */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async get(shortDid: string): Promise<string | undefined> {
    const hit = this.#memory.get(shortDid);
    if (hit !== undefined) return hit;
    const got = await this.#kv.get<string>(keys.peerLongForm(shortDid));
    if (typeof got.value !== "string") return undefined;
    this.#memory.set(shortDid, got.value);
    return got.value;
  }

  async put(shortDid: string, longDid: string): Promise<void> {
    if (this.#memory.get(shortDid) === longDid) return;
    // The short form is a hash of the long form: one key, one possible value. Write once.
    await this.#kv.atomic()
      .check({ key: keys.peerLongForm(shortDid), versionstamp: null })
      .set(keys.peerLongForm(shortDid), longDid)
      .commit();
    this.#memory.set(shortDid, longDid);
  }
}
