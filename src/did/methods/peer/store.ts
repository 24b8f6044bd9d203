/**
 * Where did:peer:4 long forms are remembered so that their short forms can be resolved later
 * ("It is not possible to resolve a short form did:peer:4 without first seeing and storing its long
 * form counterpart", peer DID spec, method 4).
 */
import { Lru } from "../../../base/mod.ts";

/** Maps a did:peer:4 short form to the long form it abbreviates. */
export interface PeerLongFormStore {
  /** The long form stored for `shortDid`, if any. */
  get(shortDid: string): Promise<string | undefined>;
  /** Remembers `longDid` as the long form of `shortDid` (idempotent). */
  put(shortDid: string, longDid: string): Promise<void>;
}

/** In-process store, bounded: the least recently used entry goes past `maxEntries`. */
export class InMemoryPeerLongFormStore implements PeerLongFormStore {
  readonly #entries: Lru<string>;

  /** `maxEntries` defaults to 10 000. */
  constructor(maxEntries = 10_000) {
    this.#entries = new Lru<string>(maxEntries);
  }

  /** Number of remembered long forms. */
  get size(): number {
    return this.#entries.size;
  }

  get(shortDid: string): Promise<string | undefined> {
    return Promise.resolve(this.#entries.get(shortDid));
  }

  put(shortDid: string, longDid: string): Promise<void> {
    this.#entries.set(shortDid, longDid);
    return Promise.resolve();
  }
}
