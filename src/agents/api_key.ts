/**
 * Agent API keys: how a request carries one, and the keyed lookup id that finds the org from the
 * key alone without storing the key (only a salted PBKDF2 hash is kept for the comparison).
 *
 * The lookup id is HMAC-SHA256 under a key derived (HKDF) from SECRETS_KEY, so it cannot be
 * brute-forced offline from a copy of the database without SECRETS_KEY.
 *
 * @module
 */
import { AppError } from "../errors.ts";

const te = new TextEncoder();
const hmacKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function lookupKey(secretsKey: Uint8Array): Promise<CryptoKey> {
  let k = hmacKeys.get(secretsKey);
  if (!k) {
    k = (async () => {
      const ikm = await crypto.subtle.importKey("raw", secretsKey as BufferSource, "HKDF", false, [
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
    hmacKeys.set(secretsKey, k);
  }
  return k;
}

/** The keyed lookup id (hex HMAC-SHA256) of an API key. */
export async function apiKeyLookupId(secretsKey: Uint8Array, apiKey: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await lookupKey(secretsKey), te.encode(apiKey));
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
