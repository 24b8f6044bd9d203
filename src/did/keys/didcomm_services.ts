/**
 * DIDComm view of a resolved DID document: the messaging services with their endpoint and the raw
 * Ed25519 recipient and routing keys a DIDComm v1 sender needs (Aries RFC 0067 conventions, plus
 * DIDCommMessaging services as found in did:peer:2 documents).
 */
import { ed25519ToX25519, keyFromVerificationMethod } from "./key_material.ts";
import { decodeBase58, decodeMultibaseKey, type MulticodecKey } from "./multicodec.ts";
import type { DidDocument, VerificationMethod } from "../types.ts";

/** A DIDComm service with its keys resolved. */
export interface DidCommService {
  /** Service id as written in the document (may be relative). */
  id: string;
  /** `did-communication`, `DIDCommMessaging`, `DIDComm` or `IndyAgent`. */
  type: string;
  /** The endpoint URI. */
  serviceEndpoint: string;
  /** Raw 32-byte Ed25519 recipient keys. */
  recipientKeys: Uint8Array[];
  /** Raw 32-byte Ed25519 routing (mediator) keys, in order. */
  routingKeys: Uint8Array[];
  accept?: string[];
  priority: number;
}

const DIDCOMM_TYPES = new Set(["did-communication", "DIDCommMessaging", "DIDComm", "IndyAgent"]);

/** All verification methods of a document: listed ones and those embedded in relationships. */
function allMethods(doc: DidDocument): VerificationMethod[] {
  const out = [...(doc.verificationMethod ?? [])];
  for (
    const rel of [
      doc.authentication,
      doc.assertionMethod,
      doc.keyAgreement,
      doc.capabilityInvocation,
      doc.capabilityDelegation,
    ]
  ) {
    for (const e of rel ?? []) if (typeof e === "object") out.push(e);
  }
  return out;
}

/** Finds a verification method by absolute or relative reference (`#key-1`, `did:...#key-1`). */
export function dereferenceVerificationMethod(
  doc: DidDocument,
  ref: string,
): VerificationMethod | undefined {
  const abs = (id: string) => (id.startsWith("#") ? doc.id + id : id);
  const target = abs(ref);
  return allMethods(doc).find((vm) => abs(vm.id) === target);
}

/** Resolves a key reference to an Ed25519 key: in-document reference, did:key, or raw base58. */
function resolveKey(doc: DidDocument, ref: string): Uint8Array | undefined {
  let key: MulticodecKey | undefined;
  if (ref.startsWith("did:key:")) {
    const mb = ref.slice("did:key:".length).split("#")[0]!;
    const r = decodeMultibaseKey(mb);
    if (r.ok) key = r.value;
  } else if (ref.startsWith("#") || ref.startsWith("did:")) {
    const vm = dereferenceVerificationMethod(doc, ref);
    const r = vm ? keyFromVerificationMethod(vm) : undefined;
    if (r?.ok) key = r.value;
  } else {
    const r = decodeBase58(ref);
    if (r.ok && r.value.length === 32) key = { keyType: "Ed25519", publicKey: r.value };
  }
  if (!key) return undefined;
  if (key.keyType === "Ed25519") return key.publicKey;
  if (key.keyType === "X25519") {
    // A key agreement key: find the Ed25519 key of the document it was derived from.
    const x = key.publicKey;
    for (const vm of allMethods(doc)) {
      const k = keyFromVerificationMethod(vm);
      if (k.ok && k.value.keyType === "Ed25519") {
        try {
          const derived = ed25519ToX25519(k.value.publicKey);
          if (derived.every((b, i) => b === x[i])) return k.value.publicKey;
        } catch {
          // not a valid Ed25519 point: skip
        }
      }
    }
  }
  return undefined;
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((s) => typeof s === "string") ? v as string[] : undefined;

/** Ed25519 keys referenced by the document's authentication relationship. */
function authenticationKeys(doc: DidDocument): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const e of doc.authentication ?? []) {
    const vm = typeof e === "string" ? dereferenceVerificationMethod(doc, e) : e;
    const k = vm ? keyFromVerificationMethod(vm) : undefined;
    if (k?.ok && k.value.keyType === "Ed25519") out.push(k.value.publicKey);
  }
  return out;
}

/**
 * DIDComm services of a document, lowest `priority` first. A service without `recipientKeys`
 * (DIDCommMessaging) uses the document's Ed25519 authentication keys. Services whose endpoint or
 * keys cannot be resolved are left out.
 */
export function didCommServices(doc: DidDocument): DidCommService[] {
  const out: DidCommService[] = [];
  for (const service of doc.service ?? []) {
    const type = Array.isArray(service.type)
      ? service.type.find((t) => DIDCOMM_TYPES.has(t))
      : service.type;
    if (typeof type !== "string" || !DIDCOMM_TYPES.has(type)) continue;
    let endpoint: unknown = service.serviceEndpoint;
    if (Array.isArray(endpoint)) endpoint = endpoint[0];
    const endpointObject = endpoint && typeof endpoint === "object"
      ? endpoint as Record<string, unknown>
      : undefined;
    const uri = endpointObject ? endpointObject.uri : endpoint;
    if (typeof uri !== "string" || uri.length === 0) continue;

    const recipientRefs = strings(service.recipientKeys);
    const recipientKeys = recipientRefs
      ? recipientRefs.map((r) => resolveKey(doc, r))
      : authenticationKeys(doc);
    const routingRefs = strings(service.routingKeys) ?? strings(endpointObject?.routingKeys) ?? [];
    const routingKeys = routingRefs.map((r) => resolveKey(doc, r));
    if (recipientKeys.length === 0 || recipientKeys.includes(undefined)) continue;
    if (routingKeys.includes(undefined)) continue;

    const accept = strings(service.accept) ?? strings(endpointObject?.accept);
    const priority = typeof service.priority === "number" ? service.priority : 0;
    out.push({
      id: service.id,
      type,
      serviceEndpoint: uri,
      recipientKeys: recipientKeys as Uint8Array[],
      routingKeys: routingKeys as Uint8Array[],
      ...(accept ? { accept } : {}),
      priority,
    });
  }
  return out.sort((a, b) => a.priority - b.priority);
}
