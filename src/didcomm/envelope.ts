/**
 * DIDComm v1 encryption envelope (Aries RFC 0019), compatible with Credo, ACA-Py and indy-sdk.
 *
 * - Content: ChaCha20-Poly1305 IETF with a 12-byte nonce under the header name
 *   `xchacha20poly1305_ietf` (what Credo 0.5/0.6 and ACA-Py send). Unpack also accepts a
 *   24-byte nonce (XChaCha20-Poly1305 IETF).
 * - CEK wrapping: libsodium `crypto_box` (Authcrypt, with the sender verkey sealed to each
 *   recipient) or `crypto_box_seal` (Anoncrypt), on Ed25519 keys converted to X25519.
 * - AAD: the ASCII bytes of the `protected` base64url string exactly as transmitted.
 *
 * @module
 */
import { base64urlnopad } from "@scure/base";
import {
  bytesToVerkey,
  ed25519SecretToX25519,
  toEd25519SecretKey,
  toVerkey,
  verkeyToBytes,
  verkeyToX25519,
} from "../crypto/mod.ts";
import { getSodium } from "./sodium.ts";
import { isObject } from "../base/mod.ts";

/** RFC 0019 JWE (flattened, recipients inside the protected header). */
export interface JweEnvelope {
  /** base64url JSON {@link ProtectedHeader}; also the AAD. */
  protected: string;
  /** base64url content nonce (12 bytes when we send). */
  iv: string;
  /** base64url ciphertext. */
  ciphertext: string;
  /** base64url 16-byte Poly1305 tag. */
  tag: string;
}

/** One recipient entry of the protected header. */
export interface JweRecipient {
  /** base64url CEK, boxed (Authcrypt) or sealed (Anoncrypt) to the recipient. */
  encrypted_key: string;
  header: {
    /** base58 Ed25519 verkey of the recipient. */
    kid: string;
    /** Authcrypt only: base64url `crypto_box_seal` of the sender verkey (base58 text). */
    sender?: string;
    /** Authcrypt only: base64url 24-byte `crypto_box` nonce. */
    iv?: string;
  };
}

/** Decoded `protected` header. */
export interface ProtectedHeader {
  enc: "xchacha20poly1305_ietf";
  typ: "JWM/1.0";
  alg: "Authcrypt" | "Anoncrypt";
  recipients: JweRecipient[];
}

/** Why an envelope was refused; the message itself stays short and reveals nothing. */
export type EnvelopeErrorCode =
  | "malformed"
  | "unsupported"
  | "too_large"
  | "not_for_us"
  | "decrypt_failed"
  | "invalid_input";

/** The single error type thrown by {@link packMessage} and {@link unpackMessage}. */
export class EnvelopeError extends Error {
  /** Machine-readable reason. */
  readonly code: EnvelopeErrorCode;
  /** @param message short, non-revealing text @param code reason */
  constructor(message: string, code: EnvelopeErrorCode) {
    super(message);
    this.name = "EnvelopeError";
    this.code = code;
  }
}

/** Sender of an Authcrypt message. */
export interface EnvelopeSender {
  /** base58 Ed25519 verkey (or Ed25519 `did:key`). */
  verkey: string;
  /** Ed25519 secret key: the 32-byte seed or the 64-byte libsodium key `seed || publicKey`. */
  secretKey: Uint8Array;
}

/** Options of {@link packMessage}. */
export interface PackOptions {
  /** base58 Ed25519 verkeys (Ed25519 `did:key`s are also accepted); at least one. */
  recipientKeys: string[];
  /** Authcrypt when given, Anoncrypt otherwise. */
  sender?: EnvelopeSender;
}

/** Limits applied by {@link unpackMessage}. */
export interface UnpackOptions {
  /** Largest decoded ciphertext accepted; default {@link DEFAULT_MAX_CIPHERTEXT_BYTES}. */
  maxCiphertextBytes?: number;
  /** Most recipients accepted in the header; default {@link DEFAULT_MAX_RECIPIENTS}. */
  maxRecipients?: number;
}

/** Result of {@link unpackMessage}. */
export interface UnpackedMessage {
  /** The plaintext DIDComm message (a JSON object). */
  message: Record<string, unknown>;
  /** base58 verkey of the authenticated sender (Authcrypt only). */
  senderKey?: string;
  /** base58 verkey of ours the message was decrypted with. */
  recipientKey: string;
}

/** Default largest ciphertext {@link unpackMessage} accepts: 4 MiB. */
export const DEFAULT_MAX_CIPHERTEXT_BYTES = 4 * 1024 * 1024;
/** Default most recipients {@link unpackMessage} accepts. */
export const DEFAULT_MAX_RECIPIENTS = 64;
const ENC = "xchacha20poly1305_ietf";
const MAX_HEADER_CHARS_PER_RECIPIENT = 1024;

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder("utf-8", { fatal: true });
const b64u = (bytes: Uint8Array): string => base64urlnopad.encode(bytes);
const fail = (message: string, code: EnvelopeErrorCode): never => {
  throw new EnvelopeError(message, code);
};

/** Lenient base64 decode: base64url or standard alphabet, padded or not (as peers differ). */
function b64d(value: unknown): Uint8Array {
  if (typeof value !== "string" || !/^[A-Za-z0-9_\-+/]*={0,2}$/.test(value)) {
    return fail("malformed envelope", "malformed");
  }
  const norm = value.replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");
  try {
    return base64urlnopad.decode(norm);
  } catch {
    return fail("malformed envelope", "malformed");
  }
}

/**
 * Packs `message` for `recipientKeys` per RFC 0019: Authcrypt when `sender` is given, else
 * Anoncrypt. Throws {@link EnvelopeError} (`invalid_input`) for bad keys or a non-JSON message.
 */
export async function packMessage(message: object, opts: PackOptions): Promise<JweEnvelope> {
  const s = await getSodium();
  let plaintext: Uint8Array;
  let recipients: string[];
  let sender: { verkey: string; xSecret: Uint8Array } | undefined;
  try {
    const json = JSON.stringify(message);
    if (typeof message !== "object" || message === null || json === undefined) {
      throw new Error("invalid");
    }
    plaintext = utf8.encode(json);
    if (!Array.isArray(opts?.recipientKeys) || opts.recipientKeys.length === 0) {
      throw new Error("invalid");
    }
    recipients = opts.recipientKeys.map(toVerkey);
    if (opts.sender) {
      const verkey = toVerkey(opts.sender.verkey);
      const sk = await toEd25519SecretKey(opts.sender.secretKey);
      if (!s.memcmp(sk.subarray(32), verkeyToBytes(verkey))) throw new Error("invalid");
      sender = { verkey, xSecret: ed25519SecretToX25519(sk) };
    }
  } catch {
    return fail("invalid pack input", "invalid_input");
  }
  const cek = s.crypto_aead_chacha20poly1305_ietf_keygen();
  const entries: JweRecipient[] = [];
  for (const kid of recipients) {
    let recipientX: Uint8Array;
    try {
      recipientX = await verkeyToX25519(kid);
    } catch {
      return fail("invalid pack input", "invalid_input");
    }
    if (sender) {
      const nonce = s.randombytes_buf(s.crypto_box_NONCEBYTES);
      entries.push({
        encrypted_key: b64u(s.crypto_box_easy(cek, nonce, recipientX, sender.xSecret)),
        header: {
          kid,
          sender: b64u(s.crypto_box_seal(utf8.encode(sender.verkey), recipientX)),
          iv: b64u(nonce),
        },
      });
    } else {
      entries.push({ encrypted_key: b64u(s.crypto_box_seal(cek, recipientX)), header: { kid } });
    }
  }
  const header: ProtectedHeader = {
    enc: ENC,
    typ: "JWM/1.0",
    alg: sender ? "Authcrypt" : "Anoncrypt",
    recipients: entries,
  };
  const protectedB64 = b64u(utf8.encode(JSON.stringify(header)));
  const iv = s.randombytes_buf(s.crypto_aead_chacha20poly1305_ietf_NPUBBYTES);
  const { ciphertext, mac } = s.crypto_aead_chacha20poly1305_ietf_encrypt_detached(
    plaintext,
    utf8.encode(protectedB64),
    null,
    iv,
    cek,
  );
  return { protected: protectedB64, iv: b64u(iv), ciphertext: b64u(ciphertext), tag: b64u(mac) };
}

/** Parses the outer JSON (object, JSON text or UTF-8 bytes) and checks sizes and types. */
function parseOuter(envelope: unknown, maxCt: number, maxRecipients: number): JweEnvelope {
  const maxChars = Math.ceil(maxCt / 3) * 4 + maxRecipients * MAX_HEADER_CHARS_PER_RECIPIENT + 4096;
  let env = envelope;
  if (env instanceof Uint8Array) {
    if (env.length > maxChars) fail("envelope too large", "too_large");
    try {
      env = utf8Strict.decode(env);
    } catch {
      fail("malformed envelope", "malformed");
    }
  }
  if (typeof env === "string") {
    if (env.length > maxChars) fail("envelope too large", "too_large");
    try {
      env = JSON.parse(env);
    } catch {
      fail("malformed envelope", "malformed");
    }
  }
  if (!isObject(env)) return fail("malformed envelope", "malformed");
  const { protected: p, iv, ciphertext, tag } = env;
  if (
    typeof p !== "string" || typeof iv !== "string" || typeof ciphertext !== "string" ||
    typeof tag !== "string"
  ) return fail("malformed envelope", "malformed");
  if (ciphertext.length > Math.ceil(maxCt / 3) * 4 + 2) fail("envelope too large", "too_large");
  if (p.length > 1024 + maxRecipients * MAX_HEADER_CHARS_PER_RECIPIENT) {
    fail("envelope too large", "too_large");
  }
  return { protected: p, iv, ciphertext, tag };
}

/** Decodes and validates the protected header. */
function parseProtected(p: string, maxRecipients: number): ProtectedHeader {
  let header: unknown;
  try {
    header = JSON.parse(utf8Strict.decode(b64d(p)));
  } catch (e: unknown) {
    if (e instanceof EnvelopeError) throw e;
    return fail("malformed envelope", "malformed");
  }
  if (!isObject(header) || !Array.isArray(header.recipients)) {
    fail("malformed envelope", "malformed");
  }
  const h = header as Record<string, unknown> & { recipients: unknown[] };
  if (h.enc !== ENC || (h.alg !== "Authcrypt" && h.alg !== "Anoncrypt")) {
    fail("unsupported envelope", "unsupported");
  }
  if (h.recipients.length === 0) fail("malformed envelope", "malformed");
  if (h.recipients.length > maxRecipients) fail("envelope too large", "too_large");
  for (const r of h.recipients) {
    if (!isObject(r) || typeof r.encrypted_key !== "string" || !isObject(r.header)) {
      fail("malformed envelope", "malformed");
    }
  }
  return h as unknown as ProtectedHeader;
}

/**
 * Decrypts an RFC 0019 envelope. `envelope` may be the parsed JSON object, the JSON text or its
 * UTF-8 bytes. `findRecipientKey(verkey)` returns our Ed25519 secret key (32-byte seed or 64
 * bytes) for a verkey we hold, else `undefined`; the first recipient `kid` we hold is used.
 * Throws {@link EnvelopeError} for anything malformed, unsupported, tampered, oversize or not for
 * us; an error thrown by `findRecipientKey` itself propagates unchanged.
 */
export async function unpackMessage(
  envelope: unknown,
  findRecipientKey: (verkey: string) => Promise<Uint8Array | undefined>,
  opts: UnpackOptions = {},
): Promise<UnpackedMessage> {
  const s = await getSodium();
  const maxCt = opts.maxCiphertextBytes ?? DEFAULT_MAX_CIPHERTEXT_BYTES;
  const maxRecipients = opts.maxRecipients ?? DEFAULT_MAX_RECIPIENTS;
  const env = parseOuter(envelope, maxCt, maxRecipients);
  const header = parseProtected(env.protected, maxRecipients);
  const iv = b64d(env.iv);
  const tag = b64d(env.tag);
  const ciphertext = b64d(env.ciphertext);
  if ((iv.length !== 12 && iv.length !== 24) || tag.length !== 16) {
    fail("malformed envelope", "malformed");
  }

  let recipient: JweRecipient | undefined;
  let recipientKey = "";
  let secret: Uint8Array | undefined;
  for (const r of header.recipients) {
    let kid: string;
    try {
      kid = bytesToVerkey(verkeyToBytes(r.header.kid));
    } catch {
      continue; // not an Ed25519 verkey: cannot be ours
    }
    secret = await findRecipientKey(kid);
    if (secret) {
      recipient = r;
      recipientKey = kid;
      break;
    }
  }
  if (!recipient || !secret) return fail("no matching recipient", "not_for_us");

  let edSecret: Uint8Array;
  try {
    edSecret = await toEd25519SecretKey(secret);
  } catch {
    return fail("recipient key unusable", "not_for_us");
  }
  if (!s.memcmp(edSecret.subarray(32), verkeyToBytes(recipientKey))) {
    fail("recipient key unusable", "not_for_us");
  }
  const xSecret = ed25519SecretToX25519(edSecret);
  const xPub = await verkeyToX25519(recipientKey);
  const encryptedKey = b64d(recipient.encrypted_key);

  let cek: Uint8Array;
  let senderKey: string | undefined;
  try {
    if (header.alg === "Authcrypt") {
      const { sender, iv: boxNonce } = recipient.header;
      if (typeof sender !== "string" || typeof boxNonce !== "string") {
        return fail("malformed envelope", "malformed");
      }
      const nonce = b64d(boxNonce);
      if (nonce.length !== s.crypto_box_NONCEBYTES) fail("malformed envelope", "malformed");
      const senderText = utf8Strict.decode(s.crypto_box_seal_open(b64d(sender), xPub, xSecret));
      senderKey = bytesToVerkey(verkeyToBytes(senderText));
      cek = s.crypto_box_open_easy(encryptedKey, nonce, await verkeyToX25519(senderKey), xSecret);
    } else {
      cek = s.crypto_box_seal_open(encryptedKey, xPub, xSecret);
    }
    if (cek.length !== 32) throw new Error("invalid");
  } catch (e: unknown) {
    if (e instanceof EnvelopeError) throw e;
    return fail("decryption failed", "decrypt_failed");
  }

  let plaintext: Uint8Array;
  const aad = utf8.encode(env.protected);
  try {
    plaintext = iv.length === 12
      ? s.crypto_aead_chacha20poly1305_ietf_decrypt_detached(null, ciphertext, tag, aad, iv, cek)
      : s.crypto_aead_xchacha20poly1305_ietf_decrypt_detached(null, ciphertext, tag, aad, iv, cek);
  } catch {
    return fail("decryption failed", "decrypt_failed");
  }
  let message: unknown;
  try {
    message = JSON.parse(utf8Strict.decode(plaintext));
  } catch {
    return fail("malformed message", "malformed");
  }
  if (!isObject(message)) return fail("malformed message", "malformed");
  return senderKey ? { message, senderKey, recipientKey } : { message, recipientKey };
}
