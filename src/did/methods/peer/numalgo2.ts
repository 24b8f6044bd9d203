/**
 * did:peer numalgo 2 (peer DID spec, "Method 2: multiple inception key without doc"):
 * `did:peer:2` + `.{purpose}{multibase key}`... + `.S{base64url service JSON}`...
 */
import { base64urlnopad } from "@scure/base";
import { isObject } from "../../../base/mod.ts";
import {
  contextFor,
  type KeyRepresentation,
  validatePublicKey,
  verificationMethodFor,
} from "../../keys/key_material.ts";
import { decodeMultibaseKey, encodeMultibaseKey } from "../../keys/multicodec.ts";
import { sha256MultihashBase58 } from "../../keys/multihash.ts";
import {
  type DidDocument,
  type DidService,
  fail,
  ok,
  type Result,
  type VerificationMethod,
  type VerificationRelationship,
} from "../../types.ts";

/** Purpose codes of key elements and the relationship each one grants. */
export const PEER2_PURPOSES: Readonly<Record<string, VerificationRelationship>> = {
  A: "assertionMethod",
  E: "keyAgreement",
  V: "authentication",
  I: "capabilityInvocation",
  D: "capabilityDelegation",
};

const EXPAND: Readonly<Record<string, string>> = {
  t: "type",
  s: "serviceEndpoint",
  r: "routingKeys",
  a: "accept",
};
const ABBREVIATE: Readonly<Record<string, string>> = {
  type: "t",
  serviceEndpoint: "s",
  routingKeys: "r",
  accept: "a",
};

/** Options of the numalgo 2 document builder. */
export interface Peer2Options {
  /** Key representation: `base58` (default, like Credo and the interface document) or `multikey` (spec). */
  representation?: KeyRepresentation;
  /**
   * Ids of services without one: `spec` gives `#service`, `#service-1`, ...; `credo` gives Credo's
   * `{did}#{type lowercased}-{index}` for every service.
   */
  serviceIds?: "spec" | "credo";
}

/** Recursively renames abbreviated keys (and the `dm` type value) back to their full names. */
function expandService(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => expandService(v));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const full = EXPAND[k] ?? k;
      out[full] = expandService(v, full);
    }
    return out;
  }
  if (key === "type" && value === "dm") return "DIDCommMessaging";
  return value;
}

/** Recursively abbreviates service keys (and the DIDCommMessaging type value). */
function abbreviateService(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => abbreviateService(v));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      out[ABBREVIATE[k] ?? k] = abbreviateService(v, k);
    }
    return out;
  }
  if (key === "type" && value === "DIDCommMessaging") return "dm";
  return value;
}

function decodeServices(encoded: string): Result<Record<string, unknown>[]> {
  let json: unknown;
  try {
    const bytes = base64urlnopad.decode(encoded.replace(/=+$/, ""));
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return fail("a service element is not base64url-encoded JSON");
  }
  const list = Array.isArray(json) ? json : [json];
  if (list.length === 0 || !list.every(isObject)) {
    return fail("a service element does not hold a JSON object");
  }
  return ok(list.map((s) => expandService(s) as Record<string, unknown>));
}

/** Resolves a did:peer:2 DID (no path/query/fragment) into its DID document. */
export function peer2Document(did: string, options: Peer2Options = {}): Result<DidDocument> {
  const prefix = "did:peer:2";
  if (!did.startsWith(prefix + ".")) return fail("a did:peer:2 DID continues with '.' elements");
  const elements = did.slice(prefix.length + 1).split(".");
  const methods: VerificationMethod[] = [];
  const relationships: Partial<Record<VerificationRelationship, string[]>> = {};
  const services: DidService[] = [];
  let unnamedServices = 0;

  for (const element of elements) {
    const purpose = element[0];
    const content = element.slice(1);
    if (!purpose || !content) return fail("a did:peer:2 element is empty");
    const relationship = PEER2_PURPOSES[purpose];
    if (relationship) {
      const key = decodeMultibaseKey(content);
      if (!key.ok) return fail(`key element ${methods.length + 1}: ${key.message}`);
      const valid = validatePublicKey(key.value.keyType, key.value.publicKey);
      if (!valid.ok) return fail(`key element ${methods.length + 1}: ${valid.message}`);
      const id = `#key-${methods.length + 1}`;
      methods.push(verificationMethodFor(key.value, id, did, options.representation ?? "base58"));
      (relationships[relationship] ??= []).push(id);
    } else if (purpose === "S") {
      const decoded = decodeServices(content);
      if (!decoded.ok) return decoded;
      for (const service of decoded.value) {
        if (typeof service.type !== "string" && !Array.isArray(service.type)) {
          return fail("a did:peer:2 service has no type");
        }
        if (options.serviceIds === "credo") {
          service.id = `${did}#${String(service.type).toLowerCase()}-${services.length}`;
        } else if (typeof service.id !== "string") {
          service.id = unnamedServices === 0 ? "#service" : `#service-${unnamedServices}`;
          unnamedServices++;
        }
        services.push(service as DidService);
      }
    } else {
      return fail(`unknown did:peer:2 purpose code ${JSON.stringify(purpose)}`);
    }
  }

  const doc: DidDocument = { "@context": contextFor(methods), id: did };
  if (methods.length > 0) doc.verificationMethod = methods;
  for (const rel of Object.values(PEER2_PURPOSES)) {
    const refs = relationships[rel];
    if (refs) doc[rel] = refs;
  }
  if (services.length > 0) doc.service = services;
  return ok(doc);
}

/** A service to encode into a peer DID. Keys are written in the order given. */
export interface PeerServiceInput {
  id?: string;
  type: string;
  serviceEndpoint: string | Record<string, unknown>;
  routingKeys?: string[];
  accept?: string[];
  /** DIDComm v1: references to the recipient keys (`#key-1`). Defaulted for `did-communication`. */
  recipientKeys?: string[];
  priority?: number;
  [member: string]: unknown;
}

/** Keys and services of a peer DID to create. */
export interface CreatePeerDidInput {
  /** Raw 32-byte Ed25519 public keys (purpose V, authentication). */
  authentication: Uint8Array[];
  /** Raw 32-byte X25519 public keys (purpose E, keyAgreement). */
  keyAgreement: Uint8Array[];
  /**
   * Services. A `did-communication` service without `recipientKeys` gets references to all
   * authentication keys (`#key-1`, ...), as Credo writes them.
   */
  services?: PeerServiceInput[];
}

/** Checks the key lists of a `CreatePeerDidInput`; throws `RangeError` on a bad key (programming error). */
export function checkPeerKeys(input: CreatePeerDidInput): void {
  for (
    const [list, keyType] of [[input.authentication, "Ed25519"], [
      input.keyAgreement,
      "X25519",
    ]] as const
  ) {
    for (const key of list) {
      const valid = validatePublicKey(keyType, key);
      if (key.length !== 32 || !valid.ok) throw new RangeError(`not a ${keyType} public key`);
    }
  }
}

/** Services with DIDComm v1 recipient key references filled in (authentication keys come first). */
export function servicesWithRecipientKeys(input: CreatePeerDidInput): PeerServiceInput[] {
  const refs = input.authentication.map((_, i) => `#key-${i + 1}`);
  return (input.services ?? []).map((s) =>
    s.type === "did-communication" && s.recipientKeys === undefined
      ? { ...s, recipientKeys: refs }
      : s
  );
}

/**
 * Creates a did:peer:2 DID: authentication keys (`.V`) first, then key agreement keys (`.E`), so the
 * resolved ids are `#key-1`... in that order; then one `.S` element per service.
 */
export function createPeerDid2(input: CreatePeerDidInput): string {
  checkPeerKeys(input);
  let did = "did:peer:2";
  for (const k of input.authentication) did += ".V" + encodeMultibaseKey("Ed25519", k);
  for (const k of input.keyAgreement) did += ".E" + encodeMultibaseKey("X25519", k);
  for (const service of servicesWithRecipientKeys(input)) {
    const json = JSON.stringify(abbreviateService(service));
    did += ".S" + base64urlnopad.encode(new TextEncoder().encode(json));
  }
  return did;
}

/** The did:peer:3 form of a did:peer:2 DID (sha2-256 multihash of the part after `did:peer:2`). */
export function peer2ToPeer3(did: string): string {
  const rest = did.slice("did:peer:2".length);
  return "did:peer:3" + sha256MultihashBase58(new TextEncoder().encode(rest));
}
