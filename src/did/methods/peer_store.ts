/**
 * Where did:peer:4 long forms are remembered so that their short forms can be resolved later
 * ("It is not possible to resolve a short form did:peer:4 without first seeing and storing its long
 * form counterpart", peer DID spec, method 4).
 */

/** Maps a did:peer:4 short form to the long form it abbreviates. */
export interface PeerLongFormStore {
  /** The long form stored for `shortDid`, if any. */
  get(shortDid: string): Promise<string | undefined>;
  /** Remembers `longDid` as the long form of `shortDid` (idempotent). */
  put(shortDid: string, longDid: string): Promise<void>;
}

/** In-process store, bounded: the oldest entry goes when `maxEntries` is exceeded. */
export class InMemoryPeerLongFormStore implements PeerLongFormStore {
  readonly #entries = new Map<string, string>();
  readonly #maxEntries: number;

  /** `maxEntries` defaults to 10 000. */
  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** Number of remembered long forms. */
  get size(): number {
    return this.#entries.size;
  }

  get(shortDid: string): Promise<string | undefined> {
    return Promise.resolve(this.#entries.get(shortDid));
  }

  put(shortDid: string, longDid: string): Promise<void> {
    this.#entries.delete(shortDid);
    this.#entries.set(shortDid, longDid);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return Promise.resolve();
  }
}
