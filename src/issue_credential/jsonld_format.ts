/**
 * The JSON-LD credential format of Issue Credential 2.0 (Aries RFC 0593) for the holder: reading
 * offers (`aries/ld-proof-vc-detail@v1.0`), building the request, reading the issued credential
 * (`aries/ld-proof-vc@v1.0`) and checking it is the one requested. Pure functions; errors as
 * values.
 *
 * @module
 */
import type { CredentialAttribute } from "./record.ts";
import { LD_PROOF_VC, LD_PROOF_VC_DETAIL } from "./messages.ts";
import { isObject } from "../base/mod.ts";
import { findFormatAttachment } from "../didcomm/mod.ts";

/** A decoded `ld-proof-vc-detail`: the credential to issue and the proof options. */
export interface LdProofVcDetail extends Record<string, unknown> {
  credential: Record<string, unknown>;
  /** `cryptosuite`: with `proofType` `DataIntegrityProof`, the one the issuer will sign with. */
  options: Record<string, unknown> & {
    proofType: string;
    proofPurpose?: string;
    cryptosuite?: string;
  };
}

/** Proof types this holder can verify (`DataIntegrityProof`: of {@link SUPPORTED_CRYPTOSUITES}). */
export const SUPPORTED_PROOF_TYPES = [
  "Ed25519Signature2018",
  "Ed25519Signature2020",
  "DataIntegrityProof",
];

/** The Data Integrity cryptosuites this holder can verify. */
export const SUPPORTED_CRYPTOSUITES = ["eddsa-rdfc-2022", "ecdsa-rdfc-2019"];

/** Formats we recognise but cannot process (no AnonCreds library can be installed here). */
const ANONCREDS_FORMATS = [
  "hlindy/cred-abstract@v2.0",
  "anoncreds/credential-offer@v1.0",
  "hlindy/cred@v2.0",
  "anoncreds/credential@v1.0",
];

/** Result of reading an offer. */
export type OfferParse =
  | {
    ok: true;
    detail: LdProofVcDetail;
    attributes: CredentialAttribute[];
    metadata: Record<string, Record<string, unknown>>;
  }
  /** `unsupported`: well formed, but a format or proof type we cannot process. */
  | {
    ok: false;
    kind: "malformed" | "unsupported";
    reason: string;
    format?: string;
    metadata?: Record<string, Record<string, unknown>>;
  };

type Json = Record<string, unknown>;
/** Checks the shape of an `ld-proof-vc-detail`. */
export function checkDetail(value: unknown): { ok: true; detail: LdProofVcDetail } | {
  ok: false;
  reason: string;
} {
  if (!isObject(value)) return { ok: false, reason: "the detail is not a JSON object" };
  const { credential, options } = value;
  if (!isObject(credential)) return { ok: false, reason: "the detail has no credential object" };
  if (!isObject(options)) return { ok: false, reason: "the detail has no options object" };
  if (typeof options.proofType !== "string") {
    return { ok: false, reason: "options.proofType is missing" };
  }
  const ctx = credential["@context"];
  if (!(typeof ctx === "string" || Array.isArray(ctx)) || ctx.length === 0) {
    return { ok: false, reason: "credential.@context is missing" };
  }
  const type = credential.type;
  if (!Array.isArray(type) || !type.includes("VerifiableCredential")) {
    return { ok: false, reason: 'credential.type must list "VerifiableCredential"' };
  }
  const issuer = credential.issuer;
  if (!(typeof issuer === "string" || (isObject(issuer) && typeof issuer.id === "string"))) {
    return { ok: false, reason: "credential.issuer is missing" };
  }
  const subject = credential.credentialSubject;
  if (!isObject(subject) && !(Array.isArray(subject) && subject.every(isObject))) {
    return { ok: false, reason: "credential.credentialSubject is missing" };
  }
  return { ok: true, detail: value as LdProofVcDetail };
}

/** Attributes from `credential_preview`, else flattened from `credentialSubject`. */
export function attributesOf(message: Json, credential: Json | undefined): CredentialAttribute[] {
  const preview = message.credential_preview;
  if (isObject(preview) && Array.isArray(preview.attributes) && preview.attributes.length > 0) {
    return preview.attributes.filter((a): a is Json => isObject(a) && typeof a.name === "string")
      .map((a) => ({
        "mime-type": typeof a["mime-type"] === "string" ? a["mime-type"] : "text/plain",
        name: a.name as string,
        value: typeof a.value === "string" ? a.value : JSON.stringify(a.value ?? null),
      }));
  }
  const out: CredentialAttribute[] = [];
  const walk = (v: unknown, path: string) => {
    if (isObject(v) || Array.isArray(v)) {
      for (const [k, inner] of Object.entries(v)) walk(inner, path ? `${path}.${k}` : k);
    } else if (path) {
      out.push({
        "mime-type": "text/plain",
        name: path,
        value: typeof v === "string" ? v : JSON.stringify(v),
      });
    }
  };
  if (credential) walk(credential.credentialSubject, "");
  return out;
}

/** Reads an `offer-credential` message. */
export function parseOffer(message: Json): OfferParse {
  const formats = message.formats;
  if (!Array.isArray(formats) || formats.length === 0 || !formats.every(isObject)) {
    return { ok: false, kind: "malformed", reason: 'the offer has no "formats" list' };
  }
  const names = formats.map((f) => String(f.format));
  if (!names.includes(LD_PROOF_VC_DETAIL)) {
    const format = names.join(", ");
    const anon = names.find((n) => ANONCREDS_FORMATS.includes(n));
    const metadata: Record<string, Record<string, unknown>> = {};
    if (anon) {
      const att = findFormatAttachment(message, "offers~attach", anon);
      if (att.ok && isObject(att.value)) {
        const { schema_id, cred_def_id } = att.value;
        metadata["_anoncreds/credential"] = {
          ...(typeof schema_id === "string" ? { schemaId: schema_id } : {}),
          ...(typeof cred_def_id === "string" ? { credentialDefinitionId: cred_def_id } : {}),
        };
      }
    }
    return {
      ok: false,
      kind: "unsupported",
      format,
      metadata,
      reason: anon
        ? `the offer uses the AnonCreds format "${anon}", which this agent cannot process; ` +
          `offer a W3C JSON-LD credential (${LD_PROOF_VC_DETAIL}) instead`
        : `the offer's format "${format}" is not supported; only ${LD_PROOF_VC_DETAIL} is`,
    };
  }
  const att = findFormatAttachment(message, "offers~attach", LD_PROOF_VC_DETAIL);
  if (!att.ok) return { ok: false, kind: "malformed", reason: att.reason };
  const checked = checkDetail(att.value);
  if (!checked.ok) return { ok: false, kind: "malformed", reason: checked.reason };
  const { detail } = checked;
  if (!SUPPORTED_PROOF_TYPES.includes(detail.options.proofType)) {
    return {
      ok: false,
      kind: "unsupported",
      format: LD_PROOF_VC_DETAIL,
      reason: `the proof type "${detail.options.proofType}" is not supported; use ${
        SUPPORTED_PROOF_TYPES.join(" or ")
      }`,
    };
  }
  const suite = detail.options.cryptosuite;
  if (
    detail.options.proofType === "DataIntegrityProof" && suite !== undefined &&
    !SUPPORTED_CRYPTOSUITES.includes(String(suite))
  ) {
    return {
      ok: false,
      kind: "unsupported",
      format: LD_PROOF_VC_DETAIL,
      reason: `the Data Integrity cryptosuite "${String(suite)}" is not supported; use ${
        SUPPORTED_CRYPTOSUITES.join(" or ")
      }`,
    };
  }
  const issuer = detail.credential.issuer;
  return {
    ok: true,
    detail,
    attributes: attributesOf(message, detail.credential),
    metadata: {
      "_jsonld/credential": {
        issuer: typeof issuer === "string" ? issuer : (issuer as Json).id,
        type: detail.credential.type,
        proofType: detail.options.proofType,
        ...(typeof suite === "string" ? { cryptosuite: suite } : {}),
        proofPurpose: detail.options.proofPurpose ?? "assertionMethod",
      },
    },
  };
}

/**
 * The request detail for an offer: the offer's `{credential, options}` echoed unchanged (what
 * Credo's holder sends and what a `contentApproved` Credo issuer requires), or, with
 * `holderDid`, with `credentialSubject.id` set to it when the offer leaves it open.
 */
export function buildRequestDetail(offer: LdProofVcDetail, holderDid?: string): LdProofVcDetail {
  const detail = structuredClone(offer);
  const subject = detail.credential.credentialSubject;
  if (holderDid && isObject(subject) && subject.id === undefined) subject.id = holderDid;
  return detail;
}

/** Reads the issued credential from an `issue-credential` message. */
export function parseIssuedCredential(message: Json): { ok: true; credential: Json } | {
  ok: false;
  reason: string;
} {
  const att = findFormatAttachment(message, "credentials~attach", LD_PROOF_VC);
  if (!att.ok) return att;
  if (!isObject(att.value)) return { ok: false, reason: "the credential is not a JSON object" };
  if (!isObject(att.value.proof)) {
    return { ok: false, reason: "the credential has no single proof object" };
  }
  return { ok: true, credential: att.value };
}
