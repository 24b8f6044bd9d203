/**
 * JSON-LD contexts the service does not bundle, from the URL prefixes an operator allows
 * (`JSONLD_CONTEXT_ALLOW`): an issuer's own vocabulary is fetched once through the safe outbound
 * client (its timeout, size cap and address policy), kept in KV (`keys.jsonldContext(url)`) and
 * never fetched again, by this process or any other sharing the database. Any other context is
 * refused with a message naming the context and the setting.
 *
 * @module
 */
import { keys } from "../../kv/mod.ts";
import { KV_DATA_MAX, Lru } from "../../base/mod.ts";
import type { SafeFetch } from "../../outbound/mod.ts";
import { JsonLdLoaderError, refusedContextMessage } from "./document_loader.ts";
import type { RemoteContexts } from "./types.ts";

/** What {@link ContextStore} is built from. */
export interface ContextStoreDeps {
  kv: Deno.Kv;
  safeFetch: SafeFetch;
  /** `JSONLD_CONTEXT_ALLOW`: URL prefixes; empty: nothing is fetched. */
  allow: readonly string[];
  now?: () => number;
  /** Largest context accepted, in bytes (also what fits one KV value). Default `KV_DATA_MAX`. */
  maxBytes?: number;
  /** Timeout of the one fetch, ms. Default 5 000. */
  timeoutMs?: number;
}

/** What is kept at `keys.jsonldContext(url)`. */
export interface StoredContext {
  url: string;
  /** The document as fetched (JSON text). */
  json: string;
  fetchedAt: string;
}

/** Allowed contexts, fetched once and kept in KV; see the module doc. */
export class ContextStore implements RemoteContexts {
  readonly #d: ContextStoreDeps;
  readonly #memory = new Lru<object>(200);
  readonly #pending = new Map<string, Promise<object>>();

  constructor(deps: ContextStoreDeps) {
    this.#d = deps;
  }

  /** True when `url` is under one of the allowed prefixes. */
  allows(url: string): boolean {
    let href: string;
    try {
      href = new URL(url).href;
    } catch {
      return false;
    }
    return href === url && this.#d.allow.some((prefix) => href.startsWith(prefix));
  }

  load(url: string): Promise<object> {
    if (!this.allows(url)) {
      return Promise.reject(
        new JsonLdLoaderError("unknown_context", url, refusedContextMessage(url, this.#d.allow)),
      );
    }
    const hot = this.#memory.get(url);
    if (hot) return Promise.resolve(hot);
    let pending = this.#pending.get(url);
    if (!pending) {
      pending = this.#kept(url).finally(() => this.#pending.delete(url));
      this.#pending.set(url, pending);
    }
    return pending;
  }

  /** The stored copy, or the fetched one stored first (the first writer wins). */
  async #kept(url: string): Promise<object> {
    const key = keys.jsonldContext(url);
    const stored = await this.#d.kv.get<StoredContext>(key);
    if (stored.value) return this.#remember(url, stored.value.json);
    const json = await this.#fetch(url);
    const value: StoredContext = {
      url,
      json,
      fetchedAt: new Date((this.#d.now ?? Date.now)()).toISOString(),
    };
    const res = await this.#d.kv.atomic().check({ key, versionstamp: null }).set(key, value)
      .commit();
    if (!res.ok) {
      const winner = await this.#d.kv.get<StoredContext>(key);
      if (winner.value) return this.#remember(url, winner.value.json);
    }
    return this.#remember(url, json);
  }

  #remember(url: string, json: string): object {
    const doc = JSON.parse(json) as object;
    this.#memory.set(url, doc);
    return doc;
  }

  async #fetch(url: string): Promise<string> {
    const maxBytes = this.#d.maxBytes ?? KV_DATA_MAX;
    const fail = (why: string) =>
      new JsonLdLoaderError("context_unavailable", url, `The JSON-LD context ${url} ${why}.`);
    let res;
    try {
      res = await this.#d.safeFetch(url, {
        headers: { accept: "application/ld+json, application/json" },
        timeoutMs: this.#d.timeoutMs ?? 5_000,
        maxBytes,
      });
    } catch (err) {
      throw fail(`could not be fetched: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (res.status !== 200) throw fail(`could not be fetched: its host answered ${res.status}`);
    const text = new TextDecoder().decode(res.body);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw fail("is not JSON");
    }
    if (typeof doc !== "object" || doc === null || Array.isArray(doc) || !("@context" in doc)) {
      throw fail('is not a JSON-LD context document (no "@context")');
    }
    return text;
  }
}
