/**
 * The DID document of a did:plc state, as plc.directory renders it today (did-method-plc
 * `packages/lib/src/document.ts`): `@context` DID v1 and multikey v1, plus the suite context of
 * each P-256 (`ecdsa-2019`) or secp256k1 (`secp256k1-2019`) verification key; `alsoKnownAs` as
 * written; every verification method a `Multikey` with an absolute id (`did#atproto`), the did:key
 * without its `did:key:` prefix as `publicKeyMultibase`; every service with a relative id
 * (`#atproto_pds`). A legacy `create` genesis is read as the `plc_operation` it stands for
 * (`at://` handle, `https://` service, the signing key as `#atproto`).
 *
 * @module
 */
import type { DidDocument, DidService, VerificationMethod } from "../../types.ts";
import type { PlcLegacyCreate, PlcOperation, PlcService } from "./audit_entry.ts";
import { parseRotationKey } from "./signature.ts";

const CONTEXTS = ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"];
const SUITE_CONTEXT = {
  "P-256": "https://w3id.org/security/suites/ecdsa-2019/v1",
  "secp256k1": "https://w3id.org/security/suites/secp256k1-2019/v1",
} as const;

/** The document data of an operation (the reference implementation's `normalizeOp`). */
interface PlcData {
  verificationMethods: Record<string, string>;
  alsoKnownAs: string[];
  services: Record<string, PlcService>;
}

// The reference implementation's `ensureAtprotoPrefix` and `ensureHttpPrefix`.
const atprotoHandle = (s: string) =>
  s.startsWith("at://") ? s : `at://${s.replace("http://", "").replace("https://", "")}`;
const httpEndpoint = (s: string) =>
  s.startsWith("http://") || s.startsWith("https://") ? s : `https://${s}`;

function dataOf(op: PlcOperation | PlcLegacyCreate): PlcData {
  if (op.type === "plc_operation") return op;
  return {
    verificationMethods: { atproto: op.signingKey },
    alsoKnownAs: [atprotoHandle(op.handle)],
    services: {
      atproto_pds: { type: "AtprotoPersonalDataServer", endpoint: httpEndpoint(op.service) },
    },
  };
}

/** The DID document of `did` in the state an operation (not a tombstone) leaves it in. */
export function plcDocument(did: string, op: PlcOperation | PlcLegacyCreate): DidDocument {
  const data = dataOf(op);
  const context = [...CONTEXTS];
  const verificationMethod: VerificationMethod[] = [];
  for (const [id, key] of Object.entries(data.verificationMethods)) {
    const parsed = parseRotationKey(key);
    if (typeof parsed !== "string") {
      const suite = SUITE_CONTEXT[parsed.curve];
      if (!context.includes(suite)) context.push(suite);
    }
    verificationMethod.push({
      id: `${did}#${id}`,
      type: "Multikey",
      controller: did,
      publicKeyMultibase: key.replace(/^did:key:/, ""),
    });
  }
  const service: DidService[] = Object.entries(data.services).map(([id, s]) => ({
    id: `#${id}`,
    type: s.type,
    serviceEndpoint: s.endpoint,
  }));
  return {
    "@context": context,
    id: did,
    alsoKnownAs: data.alsoKnownAs,
    verificationMethod,
    service,
  };
}
