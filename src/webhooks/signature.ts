/** Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */

const te = new TextEncoder();

/** Prefix of webhook signing secrets. */
export const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return SECRET_PREFIX + btoa(String.fromCharCode(...bytes));
}

/** The HMAC key bytes of a secret: the base64-decoded part after `whsec_`. */
export function secretKeyBytes(secret: string): Uint8Array {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** Imports a secret as an HMAC-SHA256 signing key. */
export function importSigningKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    secretKeyBytes(secret) as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

/**
 * The `webhook-signature` header value: one `v1,<base64>` per key, space-separated (newest
 * first), so receivers holding either secret verify during a rotation.
 */
export async function signWebhook(
  keys: CryptoKey[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const data = te.encode(`${id}.${timestampSeconds}.${body}`);
  const sigs = await Promise.all(keys.map(async (k) => {
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", k, data as BufferSource));
    return "v1," + btoa(String.fromCharCode(...mac));
  }));
  return sigs.join(" ");
}
