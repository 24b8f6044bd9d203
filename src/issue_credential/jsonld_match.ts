/**
 * Checks that an issued JSON-LD credential is the one the holder requested (RFC 0593): the same
 * credential apart from its proof and what an issuer may add, with a proof of the requested kind.
 *
 * @module
 */
import type { LdProofVcDetail } from "./jsonld_format.ts";
import { isObject } from "../base/mod.ts";

type Json = Record<string, unknown>;
/** Top-level fields an issuer may add to the requested credential. */
const ISSUER_ADDED = new Set(["proof", "id", "issuanceDate", "validFrom"]);

/** Proof suite contexts an issuer may append to the requested `@context` when signing. */
const SUITE_CONTEXTS = new Set([
  "https://w3id.org/security/suites/ed25519-2020/v1",
  "https://w3id.org/security/suites/ed25519-2018/v1",
  "https://w3id.org/security/data-integrity/v2",
  "https://w3id.org/security/data-integrity/v1",
]);

/** The received `@context` is the requested one, possibly followed by proof suite contexts. */
function contextMatches(received: unknown, requested: unknown): boolean {
  const r = ([] as unknown[]).concat(received ?? []);
  const q = ([] as unknown[]).concat(requested ?? []);
  if (r.length < q.length || !q.every((c, i) => jsonEqual(c, r[i]))) return false;
  return r.slice(q.length).every((c) => typeof c === "string" && SUITE_CONTEXTS.has(c));
}

/** JSON deep equality (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/**
 * Why `credential` is not what `request` asked for, or undefined when it is: the same credential
 * apart from its proof and fields the issuer may add (`id`, `issuanceDate`, `validFrom` when the
 * request had none; its proof suite's context appended to `@context`), and a proof of the requested
 * type (and cryptosuite, when the request names one), purpose, domain, challenge and creation.
 */
export function credentialMismatch(credential: Json, request: LdProofVcDetail): string | undefined {
  const proof = credential.proof;
  if (!isObject(proof)) return "the credential has no single proof object";
  const opts = request.options;
  if (proof.type !== opts.proofType) {
    return `the proof type "${String(proof.type)}" is not the requested "${opts.proofType}"`;
  }
  if (opts.cryptosuite !== undefined && proof.cryptosuite !== opts.cryptosuite) {
    return `the proof cryptosuite "${
      String(proof.cryptosuite)
    }" is not the requested "${opts.cryptosuite}"`;
  }
  const purpose = opts.proofPurpose ?? "assertionMethod";
  if (proof.proofPurpose !== purpose) {
    return `the proof purpose "${String(proof.proofPurpose)}" is not the requested "${purpose}"`;
  }
  for (const field of ["domain", "challenge", "created"] as const) {
    if (opts[field] !== undefined && proof[field] !== opts[field]) {
      return `the proof ${field} does not match the request`;
    }
  }
  const wanted = request.credential;
  for (const key of Object.keys(credential)) {
    if (key === "proof") continue;
    if (key === "@context") {
      if (!contextMatches(credential[key], wanted[key])) {
        return `the credential's "@context" differs`;
      }
    } else if (Object.hasOwn(wanted, key)) {
      if (!jsonEqual(credential[key], wanted[key])) return `the credential's "${key}" differs`;
    } else if (!ISSUER_ADDED.has(key)) {
      return `the credential has "${key}", which was not requested`;
    }
  }
  for (const key of Object.keys(wanted)) {
    if (wanted[key] !== undefined && !Object.hasOwn(credential, key)) {
      return `the credential lacks the requested "${key}"`;
    }
  }
  return undefined;
}
