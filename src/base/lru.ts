/**
 * The one bounded map of the service: every in-memory cache is an `Lru` (by entries, and by
 * weight when given a `weigh` function).
 *
 * @module
 */

/**
 * A Map-based LRU bounded by entry count (`max`) and, when given a `weigh` function, by total
 * weight (`maxWeight`, e.g. bytes): `set` evicts the least recently used past either bound. `get`
 * refreshes recency only for an entry not refreshed in the last `max / 4` operations, so a hot key
 * is not moved on every read (a Map delete + set per hit): any entry read at least once per
 * `max / 4` operations stays.
 */
export class Lru<V, K = string> {
  readonly #map = new Map<K, { v: V; t: number; w: number }>();
  readonly #slack: number;
  readonly #weigh: ((value: V) => number) | undefined;
  readonly #maxWeight: number;
  #weight = 0;
  #tick = 0;
  constructor(
    readonly max: number,
    options: { maxWeight?: number; weigh?: (value: V) => number } = {},
  ) {
    this.#slack = Math.floor(max / 4);
    this.#weigh = options.weigh;
    this.#maxWeight = options.maxWeight ?? Infinity;
  }
  get size(): number {
    return this.#map.size;
  }
  /** Total weight of the entries (0 without a `weigh` function). */
  get weight(): number {
    return this.#weight;
  }
  get(key: K): V | undefined {
    const e = this.#map.get(key);
    if (e === undefined) return undefined;
    if (this.#tick - e.t > this.#slack) {
      this.#map.delete(key);
      this.#map.set(key, e);
      e.t = ++this.#tick;
    }
    return e.v;
  }
  set(key: K, value: V): void {
    this.delete(key);
    const w = this.#weigh ? this.#weigh(value) : 0;
    this.#map.set(key, { v: value, t: ++this.#tick, w });
    this.#weight += w;
    while (this.#map.size > this.max || (this.#weight > this.#maxWeight && this.#map.size > 1)) {
      this.delete(this.#map.keys().next().value!);
    }
  }
  delete(key: K): void {
    const e = this.#map.get(key);
    if (e === undefined) return;
    this.#map.delete(key);
    this.#weight -= e.w;
  }
  clear(): void {
    this.#map.clear();
    this.#weight = 0;
  }
}
