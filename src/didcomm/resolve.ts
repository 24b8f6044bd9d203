/**
 * Resolution of the other side's DIDs for DIDComm: did:peer (numalgo 0, 2, 4) and did:key, through
 * the service's resolver (no network for these methods). Returns the DIDComm services with keys as
 * base58 verkeys.
 *
 * @module
 */
import { bytesToVerkey } from "../crypto/mod.ts";
import {
  didCommServices,
  type DidDocument,
  type DidResolutionResult,
  parseDidWithReason,
} from "../did/mod.ts";
import type { DidCommTarget } from "./connections/record.ts";
import { clip } from "../base/mod.ts";

/** DID methods DIDComm peers may use here: resolved locally, without the network. */
const METHODS = new Set(["peer", "key"]);

/** The resolver DIDComm resolves with (the service's; tests may use an uncached registry). */
export interface DidcommResolver {
  resolve(did: string): Promise<DidResolutionResult>;
}

/** A DID that cannot be used for DIDComm; `message` names it and says why. */
export class DidUnusableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DidUnusableError";
  }
}

/** Resolves `did` to its document (did:peer, did:key); throws {@link DidUnusableError}. */
export async function resolveDidDocument(
  resolver: DidcommResolver,
  did: string,
): Promise<DidDocument> {
  const parsed = parseDidWithReason(did);
  if (!parsed.ok) throw new DidUnusableError(`"${clip(did, 80)}" is not a DID: ${parsed.message}.`);
  if (!METHODS.has(parsed.value.method)) {
    throw new DidUnusableError(
      `DIDs of method "${parsed.value.method}" cannot be resolved for DIDComm here (did:peer and did:key can).`,
    );
  }
  const res = await resolver.resolve(parsed.value.did);
  if (!res.didDocument) {
    throw new DidUnusableError(
      `"${clip(did, 80)}" could not be resolved: ${
        res.didResolutionMetadata.message ?? res.didResolutionMetadata.error
      }.`,
    );
  }
  return res.didDocument;
}

/** The first usable http(s) DIDComm v1 service of a DID document as a target. */
export function targetFromDocument(doc: DidDocument): DidCommTarget {
  for (const s of didCommServices(doc)) {
    if (!/^https?:\/\//i.test(s.serviceEndpoint)) continue;
    return {
      recipientKeys: s.recipientKeys.map(bytesToVerkey),
      routingKeys: s.routingKeys.map(bytesToVerkey),
      endpoint: s.serviceEndpoint,
    };
  }
  throw new DidUnusableError(
    `The DID document of "${clip(doc.id, 80)}" has no DIDComm v1 service with an http(s) endpoint.`,
  );
}

/** Every Ed25519 key of a document (authentication and other methods), as base58 verkeys. */
export function documentVerkeys(doc: DidDocument): string[] {
  const out = new Set<string>();
  for (const s of didCommServices(doc)) for (const k of s.recipientKeys) out.add(bytesToVerkey(k));
  return [...out];
}

/** Resolves a DID and returns its DIDComm target. */
export async function resolveTarget(
  resolver: DidcommResolver,
  did: string,
): Promise<DidCommTarget> {
  return targetFromDocument(await resolveDidDocument(resolver, did));
}
