/**
 * Verification of a received SD-JWT VC (IETF SD-JWT and SD-JWT VC) before it is stored:
 *
 * - the issuer-signed JWT: `typ` `dc+sd-jwt` (or the older `vc+sd-jwt`), an allowed `alg`, and a
 *   signature by the issuer's key: an issuer DID with a relative (`#0`) or absolute `kid`,
 *   resolved by this service's own resolver (the method must be an `assertionMethod` when the
 *   document lists them), or an https issuer through `/.well-known/jwt-vc-issuer`;
 * - every disclosure's digest (`_sd_alg` sha-256) is referenced exactly once, nested ones too;
 * - the claims SD-JWT VC keeps out of disclosures (`iss`, `vct`, `cnf`, `iat`, `nbf`, `exp`,
 *   `status`) are in the signed payload: a credential that makes any of them disclosable is
 *   refused, and they are read from the signed payload only;
 * - `cnf` names the key that made the proof; `vct` is the offered one; `iat`, `nbf`, `exp`.
 *
 * Decoding and putting the disclosures back in place is `@sd-jwt/decode`'s; the rules are here.
 *
 * @module
 */
import { decodeSdJwtSync, getClaimsSync } from "@sd-jwt/decode";
import { sha256 } from "@noble/hashes/sha2.js";
import * as jose from "jose";
import { obj } from "../../base/mod.ts";
import { issuerJwk, IssuerKeyError } from "../../status/mod.ts";

/** Why a credential was refused: becomes the record's `errorMessage`. */
export class CredentialRejected extends Error {}

/** What verification needs from the service. */
export interface SdJwtVerifyContext {
  /** The DID document of `did`, or why not. */
  resolveDid: (did: string) => Promise<Record<string, unknown> | string>;
  /** GET a JSON object from an https issuer's well-known metadata (through the safe client). */
  getJson: (url: string) => Promise<Record<string, unknown> | null>;
  now: number;
  /** The offered `vct`, when the metadata names one. */
  expectedVct?: string;
  /** The holder key the proof was made with: its `kid` (a DID URL, when the proof named one). */
  holderKid?: string;
  /** …and its public JWK. */
  holderJwk: jose.JWK;
}

/** A verified SD-JWT VC. */
export interface VerifiedSdJwt {
  issuer: string;
  vct: string;
  /** Plain and disclosed claims, nested as in the payload, without the SD-JWT machinery. */
  claims: Record<string, unknown>;
}

/** Claims SD-JWT VC requires in the signed payload, never as disclosures. */
export const NON_DISCLOSABLE = ["iss", "vct", "cnf", "iat", "nbf", "exp", "status"];
const ALGS = ["EdDSA", "Ed25519", "ES256", "ES384", "ES512", "PS256", "RS256"];
const SKEW_S = 60;
const encoder = new TextEncoder();
const hasher = (data: string | ArrayBuffer, alg: string) => {
  if (alg.toLowerCase() !== "sha-256") {
    throw new CredentialRejected(`_sd_alg "${alg}" is not supported`);
  }
  return sha256(typeof data === "string" ? encoder.encode(data) : new Uint8Array(data));
};
const reject = (m: string): never => {
  throw new CredentialRejected(m);
};

/** Every digest referenced by `_sd` arrays and `{"...": digest}` array entries under `v`. */
function referencedDigests(v: unknown, out: string[]): void {
  if (Array.isArray(v)) {
    for (const item of v) {
      const o = obj(item);
      if (o && Object.keys(o).length === 1 && typeof o["..."] === "string") out.push(o["..."]);
      else referencedDigests(item, out);
    }
  } else if (obj(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === "_sd" && Array.isArray(x)) {
        for (const d of x) {
          if (typeof d !== "string") reject("an _sd entry is not a digest string");
          out.push(d as string);
        }
      } else referencedDigests(x, out);
    }
  }
}

/** Claims without `_sd`, `_sd_alg` and undisclosed array entries. */
function strip(v: unknown): unknown {
  if (Array.isArray(v)) {
    return v.filter((x) => !(obj(x) && Object.keys(x).length === 1 && "..." in x)).map(strip);
  }
  const o = obj(v);
  if (!o) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) if (k !== "_sd" && k !== "_sd_alg") out[k] = strip(x);
  return out;
}

/** The issuer's public key for the JWT header (the status feature's lookup, one for both). */
async function issuerKey(
  iss: string,
  header: Record<string, unknown>,
  ctx: SdJwtVerifyContext,
): Promise<jose.JWK> {
  try {
    return await issuerJwk(ctx, iss, header);
  } catch (err) {
    if (err instanceof IssuerKeyError) reject(err.message);
    throw err;
  }
}

/** Verifies `compact` as an SD-JWT VC issued to the holder key; throws {@link CredentialRejected}. */
export async function verifySdJwtVc(
  compact: string,
  ctx: SdJwtVerifyContext,
): Promise<VerifiedSdJwt> {
  if (!compact.includes("~")) reject("the credential is not an SD-JWT (no ~ separator)");
  let decoded;
  try {
    decoded = decodeSdJwtSync(compact, hasher);
  } catch (err) {
    if (err instanceof CredentialRejected) throw err;
    return reject(`the SD-JWT cannot be decoded: ${err instanceof Error ? err.message : err}`);
  }
  const { header, payload } = decoded.jwt;
  if (header.typ !== "dc+sd-jwt" && header.typ !== "vc+sd-jwt") {
    reject(`the JWT typ is "${String(header.typ)}", not dc+sd-jwt`);
  }
  if (typeof header.alg !== "string" || !ALGS.includes(header.alg)) {
    reject(`the JWT alg "${String(header.alg)}" is not allowed`);
  }
  const iss = payload.iss;
  if (typeof iss !== "string") return reject("the SD-JWT has no iss");
  const jwk = await issuerKey(iss, header, ctx);
  const jwt = compact.slice(0, compact.indexOf("~"));
  try {
    const key = await jose.importJWK({ ...jwk, alg: undefined } as jose.JWK, header.alg as string);
    await jose.compactVerify(jwt, key, { algorithms: [header.alg as string] });
  } catch (err) {
    reject(`the issuer signature does not verify: ${err instanceof Error ? err.message : err}`);
  }

  // Disclosures: each referenced exactly once, nowhere else.
  const alg = payload._sd_alg ?? "sha-256";
  if (typeof alg !== "string" || alg.toLowerCase() !== "sha-256") {
    reject(`_sd_alg "${String(alg)}" is not supported`);
  }
  const referenced: string[] = [];
  referencedDigests(payload, referenced);
  for (const d of decoded.disclosures) {
    if (d.value !== undefined) referencedDigests(d.value, referenced);
  }
  if (new Set(referenced).size !== referenced.length) {
    reject("a digest is referenced more than once");
  }
  const known = new Set(referenced);
  const topLevel = new Set(Array.isArray(payload._sd) ? payload._sd as string[] : []);
  const seen = new Set<string>();
  for (const d of decoded.disclosures) {
    const digest = d._digest ?? "";
    if (!known.has(digest)) {
      reject(`disclosure ${d.encode().slice(0, 24)}… is not referenced by the credential`);
    }
    if (seen.has(digest)) reject("a disclosure is repeated");
    seen.add(digest);
    if (d.key === "_sd" || d.key === "..." || d.key === "_sd_alg") {
      reject(`a disclosure uses the reserved name ${d.key}`);
    }
    if (d.key !== undefined && NON_DISCLOSABLE.includes(d.key) && topLevel.has(digest)) {
      reject(
        `${d.key} is selectively disclosable; SD-JWT VC requires it in the signed payload (${
          NON_DISCLOSABLE.join(", ")
        })`,
      );
    }
  }
  const claims = strip(
    getClaimsSync<Record<string, unknown>>(payload, decoded.disclosures, hasher),
  ) as Record<
    string,
    unknown
  >;

  // Binding, type and time: from the signed payload only.
  const cnf = obj(payload.cnf);
  if (!cnf) reject("the credential has no cnf: it is not bound to the holder key");
  if (typeof cnf!.kid === "string") {
    const kid = ctx.holderKid;
    if (!kid || (cnf!.kid !== kid && cnf!.kid !== kid.split("#")[0])) {
      reject(`cnf.kid ${cnf!.kid} is not the holder key ${kid ?? "(a JWK)"}`);
    }
  } else if (obj(cnf!.jwk)) {
    const theirs = await jose.calculateJwkThumbprint(cnf!.jwk as jose.JWK);
    if (theirs !== await jose.calculateJwkThumbprint(ctx.holderJwk)) {
      reject("cnf.jwk is not the holder key");
    }
  } else reject("cnf names neither a kid nor a jwk");
  if (typeof payload.vct !== "string") reject("the credential has no vct");
  if (ctx.expectedVct && payload.vct !== ctx.expectedVct) {
    reject(`vct is "${payload.vct}", the offer was for "${ctx.expectedVct}"`);
  }
  const nowS = Math.floor(ctx.now / 1000);
  const num = (k: string) => typeof payload[k] === "number" ? payload[k] as number : undefined;
  for (const k of ["iat", "nbf", "exp"]) {
    if (payload[k] !== undefined && num(k) === undefined) reject(`${k} is not a number`);
  }
  if ((num("iat") ?? 0) > nowS + SKEW_S) reject("iat is in the future");
  if ((num("nbf") ?? 0) > nowS + SKEW_S) reject("the credential is not valid yet (nbf)");
  const exp = num("exp");
  if (exp !== undefined && exp <= nowS - SKEW_S) reject("the credential has expired (exp)");
  return { issuer: iss, vct: payload.vct as string, claims };
}
