/**
 * Structural types shared by the JSON-LD credential code. They are loose on
 * purpose so that a `did-resolver` `DIDDocument` (or our own resolver's output)
 * fits without conversion.
 */

/** A verification method as found in a DID document. */
export interface LdVerificationMethod {
  id: string;
  type: string;
  controller?: string;
  publicKeyBase58?: string;
  publicKeyMultibase?: string;
  publicKeyJwk?: { kty?: string; crv?: string; x?: string; y?: string };
  revoked?: string;
}

/** The parts of a DID document that proof verification reads. */
export interface LdDidDocument {
  id: string;
  verificationMethod?: LdVerificationMethod[];
  assertionMethod?: Array<string | LdVerificationMethod>;
  authentication?: Array<string | LdVerificationMethod>;
  capabilityInvocation?: Array<string | LdVerificationMethod>;
  capabilityDelegation?: Array<string | LdVerificationMethod>;
  keyAgreement?: Array<string | LdVerificationMethod>;
}

/**
 * Resolves a bare DID (no fragment) to its DID document. Injected by the app
 * (its DID resolver) or by tests. Return `null`/`undefined` or throw when the
 * DID cannot be resolved.
 */
export type ResolveDid = (did: string) => Promise<LdDidDocument | null | undefined>;

/** The {@link ResolveDid} of a DID resolver: its document, or null when it has none. */
export function resolveDidWith(
  resolver: { resolve(did: string): Promise<{ didDocument?: unknown }> },
): ResolveDid {
  return async (did) => ((await resolver.resolve(did)).didDocument ?? null) as LdDidDocument | null;
}

/** A JSON-LD remote document as `jsonld` expects a document loader to return. */
export interface RemoteDocument {
  contextUrl: string | null;
  documentUrl: string;
  document: object;
}

/** A `jsonld` document loader: URL → remote document; throws on failure. */
export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/**
 * Where a document loader finds contexts that are not bundled (the `JSONLD_CONTEXT_ALLOW`
 * store). `load` throws a `JsonLdLoaderError` when the context may not or cannot be had.
 */
export interface RemoteContexts {
  load(url: string): Promise<object>;
}
