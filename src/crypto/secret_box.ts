/** Encryption of secrets at rest (AES-256-GCM with SECRETS_KEY) and salted hashes for compare-only secrets. */

const te = new TextEncoder();
const td = new TextDecoder();

/** base64url without padding. */
export function b64u(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Decodes base64url (padding optional). Throws on bad input. */
export function fromB64u(s: string): Uint8Array {
  const b = s.replaceAll("-", "+").replaceAll("_", "/");
  return Uint8Array.from(atob(b + "=".repeat((4 - (b.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

/** Constant-time comparison of two byte strings. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a[i % (a.length || 1)] ?? 0) ^ (b[i % (b.length || 1)] ?? 0);
  return diff === 0;
}

/**
 * Sealed value format: `v1.<iv>.<ciphertext+tag>`, both base64url. Sealing uses the current key;
 * opening tries the current key, then each previous one (SECRETS_KEY_PREVIOUS, during a rotation).
 * AES-GCM authenticates, so a wrong key fails instead of giving garbage.
 */
export class SecretBox {
  readonly #keys: Promise<CryptoKey>[];

  constructor(rawKey: Uint8Array, previous: Uint8Array[] = []) {
    for (const k of [rawKey, ...previous]) {
      if (k.length !== 32) throw new Error("SecretBox needs 32-byte keys");
    }
    this.#keys = [rawKey, ...previous].map((k) =>
      crypto.subtle.importKey("raw", k as BufferSource, "AES-GCM", false, ["encrypt", "decrypt"])
    );
  }

  /** Encrypts bytes or a string; `aad` binds the value to its place (e.g. the record id). */
  async seal(plain: Uint8Array | string, aad = ""): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = typeof plain === "string" ? te.encode(plain) : plain;
    const ct = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: te.encode(aad) },
      await this.#keys[0]!,
      data as BufferSource,
    );
    return `v1.${b64u(iv)}.${b64u(new Uint8Array(ct))}`;
  }

  /** Decrypts a sealed value to bytes. Throws when tampered with or sealed under another key/aad. */
  async open(sealed: string, aad = ""): Promise<Uint8Array> {
    return (await this.#open(sealed, aad)).plain;
  }

  /** Decrypts a sealed string. */
  async openString(sealed: string, aad = ""): Promise<string> {
    return td.decode(await this.open(sealed, aad));
  }

  /**
   * For a rotation: the value sealed again under the current key when it opens only with a
   * previous key; undefined when it is already sealed under the current key. Throws when no key
   * opens it.
   */
  async reseal(sealed: string, aad = ""): Promise<string | undefined> {
    const { plain, keyIndex } = await this.#open(sealed, aad);
    try {
      return keyIndex === 0 ? undefined : await this.seal(plain, aad);
    } finally {
      plain.fill(0);
    }
  }

  async #open(sealed: string, aad: string): Promise<{ plain: Uint8Array; keyIndex: number }> {
    const [v, iv, ct] = sealed.split(".");
    if (v !== "v1" || !iv || !ct) throw new Error("not a sealed value");
    const params = {
      name: "AES-GCM",
      iv: fromB64u(iv) as BufferSource,
      additionalData: te.encode(aad),
    };
    const data = fromB64u(ct) as BufferSource;
    let last: unknown;
    for (let i = 0; i < this.#keys.length; i++) {
      try {
        const pt = await crypto.subtle.decrypt(params, await this.#keys[i]!, data);
        return { plain: new Uint8Array(pt), keyIndex: i };
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }
}

const PBKDF2_ITERATIONS = 100_000;

/** Salted PBKDF2-SHA256 hash for secrets that are only compared: `pbkdf2$<iter>$<salt>$<hash>`. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const h = await pbkdf2(secret, salt, PBKDF2_ITERATIONS);
  return `pbkdf2$${PBKDF2_ITERATIONS}$${b64u(salt)}$${b64u(h)}`;
}

/** Checks a secret against `hashSecret` output in constant time. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [alg, iter, salt, hash] = stored.split("$");
  if (alg !== "pbkdf2" || !iter || !salt || !hash) return false;
  const h = await pbkdf2(secret, fromB64u(salt), Number(iter));
  return timingSafeEqual(h, fromB64u(hash));
}

async function pbkdf2(secret: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", te.encode(secret), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}
