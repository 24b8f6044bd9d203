/**
 * Agent API keys: how a request carries one, and the keyed lookup id that finds the org from the
 * key alone without storing the key (only a salted PBKDF2 hash is kept for the comparison).
 *
 * The lookup id is HMAC-SHA256 under a key derived (HKDF) from the lookup pepper: 32 bytes kept
 * sealed (SECRETS_KEY) at `keys.apiKeyPepper()`, so ids cannot be brute-forced offline from a
 * copy of the database alone. The pepper does not change when SECRETS_KEY is rotated (it is only
 * sealed again), so the ids stay valid. A service whose agents predate the pepper record uses the
 * SECRETS_KEY of that time as its pepper, which keeps their ids.
 *
 * @module
 */
import type { Resealable, SecretBox } from "../crypto/mod.ts";
import { AppError } from "../base/mod.ts";
import { atomicUpdate, keys } from "../kv/mod.ts";

const te = new TextEncoder();
const hmacKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
const PEPPER_AAD = "api-key-lookup-pepper";

/** Value of `keys.apiKeyPepper()`. */
interface StoredPepper {
  sealed: string;
  createdAt: string;
}

/** What the lookup index is built from. */
export interface ApiKeyIndexDeps {
  kv: Deno.Kv;
  secrets: SecretBox;
  /** The current SECRETS_KEY: the pepper of deployments whose agents predate the pepper record. */
  secretsKey: Uint8Array | undefined;
  now: () => number;
}

/** Keyed lookup ids of agent API keys, under the service's pepper (loaded once, on first use). */
export class ApiKeyIndex {
  readonly #deps: ApiKeyIndexDeps;
  #pepper: Promise<Uint8Array> | undefined;

  constructor(deps: ApiKeyIndexDeps) {
    this.#deps = deps;
  }

  /** The pepper (loaded, or created race-safely); a failed load is tried again next time. */
  pepper(): Promise<Uint8Array> {
    if (!this.#pepper) {
      const p = loadOrCreatePepper(this.#deps);
      p.catch(() => {
        if (this.#pepper === p) this.#pepper = undefined;
      });
      this.#pepper = p;
    }
    return this.#pepper;
  }

  /** The keyed lookup id (hex HMAC-SHA256) of an API key. */
  async lookupId(apiKey: string): Promise<string> {
    return await apiKeyLookupId(await this.pepper(), apiKey);
  }
}

async function loadOrCreatePepper(deps: ApiKeyIndexDeps): Promise<Uint8Array> {
  const got = await deps.kv.get<StoredPepper>(keys.apiKeyPepper());
  if (got.value) return await deps.secrets.open(got.value.sealed, PEPPER_AAD);
  return await atomicUpdate(deps.kv, async (op) => {
    const cur = await deps.kv.get<StoredPepper>(keys.apiKeyPepper());
    if (cur.value) return await deps.secrets.open(cur.value.sealed, PEPPER_AAD);
    // Lookup ids written before this record existed were keyed by SECRETS_KEY itself.
    let anyAgent = false;
    for await (const _ of deps.kv.list({ prefix: keys.agentPrefix() }, { limit: 1 })) {
      anyAgent = true;
    }
    if (anyAgent && !deps.secretsKey) throw new Error("SECRETS_KEY is not configured");
    const pepper = anyAgent
      ? new Uint8Array(deps.secretsKey!)
      : crypto.getRandomValues(new Uint8Array(32));
    const stored: StoredPepper = {
      sealed: await deps.secrets.seal(pepper, PEPPER_AAD),
      createdAt: new Date(deps.now()).toISOString(),
    };
    op.check(cur).set(keys.apiKeyPepper(), stored);
    return pepper;
  }, { conflict: () => new Error("could not load or create the API key lookup pepper") });
}

/** For a SECRETS_KEY rotation: the pepper record. */
export const pepperResealable: Resealable<StoredPepper> = {
  name: "API key lookup pepper",
  select: { key: keys.apiKeyPepper() },
  async reseal(value, box) {
    const sealed = await box.reseal(value.sealed, PEPPER_AAD);
    return sealed === undefined ? undefined : { ...value, sealed };
  },
};

function lookupKey(pepper: Uint8Array): Promise<CryptoKey> {
  let k = hmacKeys.get(pepper);
  if (!k) {
    k = (async () => {
      const ikm = await crypto.subtle.importKey("raw", pepper as BufferSource, "HKDF", false, [
        "deriveKey",
      ]);
      return await crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(0),
          info: te.encode("ssi-edge agent api key lookup v1"),
        },
        ikm,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign"],
      );
    })();
    hmacKeys.set(pepper, k);
  }
  return k;
}

/** The keyed lookup id (hex HMAC-SHA256) of an API key under the pepper. */
export async function apiKeyLookupId(pepper: Uint8Array, apiKey: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await lookupKey(pepper), te.encode(apiKey));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Shortest and longest accepted API key. */
export const API_KEY_MIN = 16;
export const API_KEY_MAX = 512;

/**
 * Reads the API key of a token request: header `x-api-key`, else the raw `authorization` header
 * value (CREDEBL style, no scheme), also `Authorization: ApiKey <key>`. Throws 401 when absent.
 */
export function readApiKey(headers: { get(name: string): string | null | undefined }): string {
  const x = headers.get("x-api-key");
  if (x) return x;
  const auth = headers.get("authorization");
  if (auth) {
    const m = /^ApiKey[ ]+(.+)$/i.exec(auth);
    return m ? m[1]! : auth;
  }
  throw new AppError(
    "unauthorized",
    401,
    "An agent API key is required: send it in the authorization header (or x-api-key).",
    { headers: { "www-authenticate": 'ApiKey realm="agent"' } },
  );
}

/** 401 for a key that does not match; the same sentence whatever did not match. */
export function wrongApiKey(): AppError {
  return new AppError("unauthorized", 401, "The agent API key is not valid.", {
    headers: { "www-authenticate": 'ApiKey realm="agent", error="invalid_key"' },
  });
}
