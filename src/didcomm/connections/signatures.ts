/**
 * Signatures of handshake responses, checked against the invitation keys:
 * - DID Exchange (RFC 0023): `did_rotate~attach` / `did_doc~attach` signed as a JWS (EdDSA,
 *   Aries RFC 0017 attachment `data.jws`), signing input `protected + "." + base64url(payload)`;
 * - Connections 1.0 (RFC 0160): `connection~sig`, `ed25519Sha512_single` over `sig_data`
 *   (8-byte big-endian timestamp + the connection JSON).
 *
 * @module
 */
import { base64urlnopad } from "@scure/base";
import { bytesToVerkey, toVerkey, verifyEd25519, verkeyToBytes } from "../../crypto/mod.ts";
import { DidCommProblem } from "../problem_report.ts";
import { isObject } from "../../base/mod.ts";

const utf8 = new TextEncoder();
/** Lenient base64 / base64url decode (padded or not). */
export function decodeB64(value: unknown): Uint8Array | undefined {
  if (typeof value !== "string" || !/^[A-Za-z0-9_\-+/]*={0,2}$/.test(value)) return undefined;
  try {
    return base64urlnopad.decode(
      value.replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_"),
    );
  } catch {
    return undefined;
  }
}

function ed25519Verify(sig: Uint8Array, data: Uint8Array, verkey: string): boolean {
  try {
    return verifyEd25519(sig, data, verkeyToBytes(verkey));
  } catch {
    return false;
  }
}

function keyOf(header: Record<string, unknown>, protectedHeader: Record<string, unknown>) {
  try {
    if (typeof header.kid === "string" && header.kid.startsWith("did:key:")) {
      return toVerkey(header.kid.split("#")[0]!);
    }
    const jwk = protectedHeader.jwk;
    if (isObject(jwk) && jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string") {
      const x = decodeB64(jwk.x);
      if (x?.length === 32) return bytesToVerkey(x);
    }
  } catch {
    // fall through
  }
  return undefined;
}

/**
 * Verifies a signed attachment and returns its payload bytes. The signing key must be one of
 * `allowedKeys` (base58). Throws `DidCommProblem(problemCode)` naming what failed.
 */
export function verifySignedAttachment(
  attachment: unknown,
  allowedKeys: string[],
  problemCode: string,
): Uint8Array {
  const fail = (why: string): never => {
    throw new DidCommProblem(problemCode, `The response's signed attachment ${why}.`);
  };
  if (!isObject(attachment) || !isObject(attachment.data)) return fail("is malformed");
  const payload = decodeB64(attachment.data.base64);
  if (!payload) return fail("has no base64 data");
  const jws = attachment.data.jws;
  if (!isObject(jws)) return fail("is not signed");
  const sigs = Array.isArray(jws.signatures) ? jws.signatures : [jws];
  const payloadB64 = base64urlnopad.encode(payload);
  for (const sig of sigs) {
    if (!isObject(sig) || typeof sig.protected !== "string") continue;
    let ph: Record<string, unknown>;
    try {
      const parsed = JSON.parse(new TextDecoder().decode(decodeB64(sig.protected)));
      if (!isObject(parsed)) continue;
      ph = parsed;
    } catch {
      continue;
    }
    if (ph.alg !== "EdDSA") continue;
    const key = keyOf(isObject(sig.header) ? sig.header : {}, ph);
    if (!key || !allowedKeys.includes(key)) continue;
    const signature = decodeB64(sig.signature);
    if (!signature) continue;
    if (ed25519Verify(signature, utf8.encode(`${sig.protected}.${payloadB64}`), key)) {
      return payload;
    }
    return fail("signature does not verify");
  }
  return fail("is not signed by the invitation key");
}

/** The `connection` object of a verified Connections 1.0 `connection~sig`. */
export function verifyConnectionSig(
  sig: unknown,
  allowedKeys: string[],
): Record<string, unknown> {
  const code = "response_not_accepted";
  const fail = (why: string): never => {
    throw new DidCommProblem(code, `The response's connection~sig ${why}.`);
  };
  if (!isObject(sig)) return fail("is missing");
  if (typeof sig["@type"] !== "string" || !sig["@type"].endsWith("/ed25519Sha512_single")) {
    return fail("is not an ed25519Sha512_single signature");
  }
  let signer: string;
  try {
    signer = toVerkey(String(sig.signer));
  } catch {
    return fail("has no valid signer key");
  }
  if (!allowedKeys.includes(signer)) return fail("is not signed by the invitation key");
  const data = decodeB64(sig.sig_data);
  const signature = decodeB64(sig.signature);
  if (!data || !signature || data.length <= 8) return fail("is malformed");
  if (!ed25519Verify(signature, data, signer)) return fail("does not verify");
  try {
    const connection = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data.slice(8)));
    if (isObject(connection)) return connection;
  } catch {
    // below
  }
  return fail("does not sign a connection object");
}
