/**
 * did:jwk (https://github.com/quartzjer/did-jwk/blob/main/spec.md): the identifier is a base64url JSON
 * public JWK; the document has one JsonWebKey2020 method `#0`. `use: "sig"` drops keyAgreement,
 * `use: "enc"` keeps only keyAgreement. JWKs with private members are rejected.
 */
import { base64urlnopad } from "@scure/base";
import { ed25519 } from "@noble/curves/ed25519.js";
import { validatePublicKey } from "../keys/key_material.ts";
import type { KeyType } from "../keys/multicodec.ts";
import {
  DERIVED_DID_TRAITS,
  type DidDocument,
  type DidMethod,
  fail,
  ok,
  type ParsedDid,
  type PublicJwk,
  resolutionError,
  resolutionSuccess,
  type Result,
} from "../types.ts";

const JWS_2020_CONTEXT = "https://w3id.org/security/suites/jws-2020/v1";
/** Members that only private (or secret) JWKs carry (RFC 7518 section 6). */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
const EC_LENGTHS: Record<string, number> = {
  "P-256": 32,
  "P-384": 48,
  "P-521": 66,
  "secp256k1": 32,
};
const OKP_LENGTHS: Record<string, number> = { Ed25519: 32, X25519: 32, Ed448: 57, X448: 56 };

function b64(value: unknown, name: string): Result<Uint8Array> {
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]+$/.test(value)) {
    return fail(`the JWK member ${name} is not base64url`);
  }
  try {
    return ok(base64urlnopad.decode(value));
  } catch {
    return fail(`the JWK member ${name} is not base64url`);
  }
}

/** Checks that a JWK is a well-formed public key (kty, curve, coordinate lengths, point on curve). */
export function validatePublicJwk(jwk: Record<string, unknown>): Result<PublicJwk> {
  if (typeof jwk.kty !== "string") return fail("the JWK has no kty");
  const secret = PRIVATE_MEMBERS.find((m) => m in jwk);
  if (secret) return fail(`the JWK contains the private member "${secret}"`);
  if (jwk.kty === "EC") {
    const crv = String(jwk.crv);
    const n = EC_LENGTHS[crv];
    if (!n) return fail(`EC curve ${crv} is not supported`);
    const x = b64(jwk.x, "x");
    if (!x.ok) return x;
    const y = b64(jwk.y, "y");
    if (!y.ok) return y;
    if (x.value.length !== n || y.value.length !== n) {
      return fail(`${crv} coordinates have ${n} bytes`);
    }
    const point = new Uint8Array(1 + 2 * n);
    point[0] = 4;
    point.set(x.value, 1);
    point.set(y.value, 1 + n);
    const valid = validatePublicKey(crv as KeyType, point);
    if (!valid.ok) return valid;
  } else if (jwk.kty === "OKP") {
    const crv = String(jwk.crv);
    const n = OKP_LENGTHS[crv];
    if (!n) return fail(`OKP curve ${crv} is not supported`);
    const x = b64(jwk.x, "x");
    if (!x.ok) return x;
    if (x.value.length !== n) return fail(`${crv} keys have ${n} bytes`);
    if (crv === "Ed25519") {
      try {
        ed25519.Point.fromBytes(x.value);
      } catch {
        return fail("x is not a valid Ed25519 public key");
      }
    }
  } else if (jwk.kty === "RSA") {
    const n = b64(jwk.n, "n");
    if (!n.ok) return n;
    const e = b64(jwk.e, "e");
    if (!e.ok) return e;
    if (n.value.length < 128) return fail("RSA moduli shorter than 1024 bits are not accepted");
  } else {
    return fail(`JWK kty ${jwk.kty} is not supported (symmetric keys cannot be DIDs)`);
  }
  return ok(jwk as PublicJwk);
}

/** Builds the did:jwk document for a DID (no path/query/fragment). */
export function didJwkDocument(did: string): Result<DidDocument> {
  const prefix = "did:jwk:";
  if (!did.startsWith(prefix)) return fail("not a did:jwk DID");
  const encoded = did.slice(prefix.length);
  const bytes = b64(encoded, "identifier");
  if (!bytes.ok) return fail("the identifier is not base64url");
  let jwk: unknown;
  try {
    jwk = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.value));
  } catch {
    return fail("the identifier does not decode to UTF-8 JSON");
  }
  if (!jwk || typeof jwk !== "object" || Array.isArray(jwk)) {
    return fail("the identifier does not decode to a JSON object");
  }
  const valid = validatePublicJwk(jwk as Record<string, unknown>);
  if (!valid.ok) return valid;
  const publicKeyJwk = valid.value;

  const vmId = `${did}#0`;
  const doc: DidDocument = {
    "@context": ["https://www.w3.org/ns/did/v1", JWS_2020_CONTEXT],
    id: did,
    verificationMethod: [{ id: vmId, type: "JsonWebKey2020", controller: did, publicKeyJwk }],
  };
  if (publicKeyJwk.use !== "enc") {
    doc.assertionMethod = [vmId];
    doc.authentication = [vmId];
    doc.capabilityInvocation = [vmId];
    doc.capabilityDelegation = [vmId];
  }
  if (publicKeyJwk.use !== "sig") doc.keyAgreement = [vmId];
  return ok(doc);
}

/** Encodes a public JWK as a did:jwk DID (JSON as given, base64url without padding). */
export function createDidJwk(jwk: PublicJwk): string {
  const valid = validatePublicJwk(jwk);
  if (!valid.ok) throw new TypeError(valid.message);
  return "did:jwk:" + base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(jwk)));
}

/** The did:jwk driver. */
export const jwkMethod: DidMethod = {
  name: "jwk",
  // derived from the JWK in the DID: never changes, cannot be deactivated
  traits: DERIVED_DID_TRAITS,
  deterministic: true,
  resolve(parsed: ParsedDid) {
    const doc = didJwkDocument(parsed.did);
    return Promise.resolve(
      doc.ok
        ? resolutionSuccess(doc.value)
        : resolutionError("invalidDid", `invalid did:jwk: ${doc.message}`),
    );
  },
};
