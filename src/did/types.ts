/**
 * Shared DID resolution types (W3C DID Core + DID Resolution) and the `DidMethod` driver interface.
 * Pure types plus two tiny constructors; no I/O.
 */

/** Error codes of DID Resolution (https://www.w3.org/TR/did-resolution/) used by this service. */
export type DidResolutionErrorCode =
  | "invalidDid"
  | "invalidDidUrl"
  | "notFound"
  | "representationNotSupported"
  | "methodNotSupported"
  | "internalError";

/** A public JWK as it appears in `publicKeyJwk` (never with private members). */
export interface PublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  use?: string;
  kid?: string;
  [member: string]: unknown;
}

/** A verification method object. Key material is in exactly one of the `publicKey*` members. */
export interface VerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyBase58?: string;
  publicKeyMultibase?: string;
  publicKeyJwk?: PublicJwk;
  [member: string]: unknown;
}

/** A service entry of a DID document. */
export interface DidService {
  id: string;
  type: string | string[];
  serviceEndpoint: unknown;
  [member: string]: unknown;
}

/** Entry of a verification relationship: a reference (absolute or relative DID URL) or an embedded method. */
export type VerificationRelationshipEntry = string | VerificationMethod;

/** A DID document: free-form record with the DID Core members typed. */
export interface DidDocument {
  "@context"?: string | (string | Record<string, unknown>)[];
  id: string;
  alsoKnownAs?: string[];
  controller?: string | string[];
  verificationMethod?: VerificationMethod[];
  authentication?: VerificationRelationshipEntry[];
  assertionMethod?: VerificationRelationshipEntry[];
  keyAgreement?: VerificationRelationshipEntry[];
  capabilityInvocation?: VerificationRelationshipEntry[];
  capabilityDelegation?: VerificationRelationshipEntry[];
  service?: DidService[];
  [member: string]: unknown;
}

/** The verification relationships of DID Core, in the order this library writes them. */
export const VERIFICATION_RELATIONSHIPS = [
  "authentication",
  "assertionMethod",
  "capabilityInvocation",
  "capabilityDelegation",
  "keyAgreement",
] as const;

/** One of the DID Core verification relationship names. */
export type VerificationRelationship = typeof VERIFICATION_RELATIONSHIPS[number];

/** didDocumentMetadata (all optional, as in the interface document section 2.2). */
export interface DidDocumentMetadata {
  created?: string;
  updated?: string;
  deactivated?: boolean;
  versionId?: string;
  nextUpdate?: string;
  nextVersionId?: string;
  equivalentId?: string;
  canonicalId?: string;
  [member: string]: unknown;
}

/** didResolutionMetadata (all optional). `error` carries a `DidResolutionErrorCode` on failure. */
export interface DidResolutionMetadata {
  contentType?: string;
  error?: DidResolutionErrorCode;
  message?: string;
  servedFromCache?: boolean;
  [member: string]: unknown;
}

/** The result of resolving a DID: all three members are always present. */
export interface DidResolutionResult {
  didDocument: DidDocument | null;
  didDocumentMetadata: DidDocumentMetadata;
  didResolutionMetadata: DidResolutionMetadata;
}

/** A syntactically valid DID or DID URL, split into its parts. */
export interface ParsedDid {
  /** The DID alone: `did:<method>:<id>` (no path, query or fragment). */
  did: string;
  /** Method name, e.g. `key`. */
  method: string;
  /** Method-specific identifier (still percent-encoded, as written). */
  id: string;
  /** The whole input (DID URL) as given. */
  didUrl: string;
  /** Path including its leading `/`, when present. */
  path?: string;
  /** Query without the `?`, when present. */
  query?: string;
  /** Fragment without the `#`, when present. */
  fragment?: string;
}

/** Per-call context handed to a method driver. An interface so that callers can add members. */
export interface ResolveContext {
  /** Aborts network work of drivers that do any. */
  signal?: AbortSignal;
  /** A version of the DID document (DID parameters); only for methods with `versions`. */
  version?: DidVersion;
}

/** The version DID parameters (DID Core "DID Parameters"), as given. */
export interface DidVersion {
  versionId?: string;
  versionTime?: string;
  versionNumber?: string;
}

/**
 * How a DID's result may be reused:
 * - `deterministic`: a pure function of the DID (did:key, did:jwk, did:peer:0/2/4 long form);
 * - `local`: depends on local state, cheap, not cached (did:peer:4 short form);
 * - `network`: fetched from elsewhere (did:web, universal resolver); cached with a TTL.
 */
export type DidClass = "deterministic" | "local" | "network";

/** How long a resolution may be reused. */
export type Freshness =
  /** Derived from the DID alone (did:key, did:jwk, did:peer): never changes. */
  | { kind: "immutable" }
  /** A cached network resolution: fresh until `expiresAt` (ms since epoch). */
  | { kind: "until"; expiresAt: number }
  /** Not to be reused (failures, uncached results). */
  | { kind: "none" };

/**
 * What the resolver answers: a result, how long it stays fresh, and where it came from. No HTTP:
 * status codes and bytes are the HTTP layer's (`http/answer.ts`). Shared by every caller: never change
 * its `result` (the `resolve` entry point of the resolver hands out a frozen one).
 */
export interface Resolution {
  /** The W3C resolution result, `didResolutionMetadata.servedFromCache` set. */
  readonly result: DidResolutionResult;
  readonly freshness: Freshness;
  /**
   * The class of the method that answered; a failure of a `network` method (a DID host, an
   * upstream resolver or directory) is a peer's failure, not ours.
   */
  readonly source: DidClass;
}

/**
 * A DID method's traits as the DIF Universal Resolver's `GET /1.0/traits` reports them (the trait
 * names of its configuration and OpenAPI document: `updatable`, `deactivatable`, `enumerable`,
 * `historyAvailable`, `humanReadable`; see the DIF DID Traits work item).
 */
export interface DidTraits {
  /** The DID document can change. */
  updatable: boolean;
  /** The DID can be deactivated. */
  deactivatable: boolean;
  /** Every DID of the method can be listed (a public registry). */
  enumerable: boolean;
  /** Earlier versions of a document can be resolved. */
  historyAvailable: boolean;
  /** A person can read and remember the DID. */
  humanReadable: boolean;
}

/**
 * The traits of a method whose DID document is derived from the DID itself (a key, a JWK, an
 * account address): it never changes, cannot be deactivated, listed or read back in versions, and
 * is not meant to be read by people.
 */
export const DERIVED_DID_TRAITS: DidTraits = Object.freeze({
  updatable: false,
  deactivatable: false,
  enumerable: false,
  historyAvailable: false,
  humanReadable: false,
});

/** A DID method driver. */
export interface DidMethod {
  /** method name, e.g. "key" */
  readonly name: string;
  /** true when resolution is a pure function of the DID (memoizable, no network) */
  readonly deterministic: boolean;
  /**
   * Optional finer answer for one DID, for methods where only some DIDs resolve deterministically
   * (did:peer:4 short form depends on what was seen before). Absent: `deterministic` applies.
   */
  isDeterministicFor?(did: ParsedDid): boolean;
  /** True when the method resolves earlier versions (`ResolveContext.version`). */
  readonly versions?: boolean;
  /** What `GET /1.0/traits` says of the method; absent: nothing (`{}`). */
  readonly traits?: DidTraits;
  /**
   * The `application/did+json` document of a method whose JSON representation differs from its
   * `application/did+ld+json` one (a plug-in driver's did+json answer); absent: the same document.
   */
  jsonDocument?(doc: DidDocument): DidDocument;
  /** Non-secret settings `GET /1.0/properties` lists for the method (a plug-in's); absent: none. */
  readonly properties?: Readonly<Record<string, unknown>>;
  /** Resolve a parsed DID. Never throws for bad input: failures are results with `error` set. */
  resolve(did: ParsedDid, ctx: ResolveContext): Promise<DidResolutionResult>;
}

/** A failed resolution: no document, empty document metadata, `error` and `message` set. */
export function resolutionError(
  code: DidResolutionErrorCode,
  message: string,
): DidResolutionResult {
  return {
    didDocument: null,
    didDocumentMetadata: {},
    didResolutionMetadata: { error: code, message },
  };
}

/** Media type of the JSON-LD DID document representation produced by the built-in methods. */
export const DID_LD_JSON = "application/did+ld+json";

/** A successful resolution of `didDocument` with optional document metadata. */
export function resolutionSuccess(
  didDocument: DidDocument,
  didDocumentMetadata: DidDocumentMetadata = {},
): DidResolutionResult {
  return {
    didDocument,
    didDocumentMetadata,
    didResolutionMetadata: { contentType: DID_LD_JSON },
  };
}

/** A copy of `result` with `servedFromCache` set in its resolution metadata. */
export function withServedFromCache(
  result: DidResolutionResult,
  servedFromCache: boolean,
): DidResolutionResult {
  return {
    didDocument: result.didDocument,
    didDocumentMetadata: result.didDocumentMetadata,
    didResolutionMetadata: { ...result.didResolutionMetadata, servedFromCache },
  };
}

/** Freezes a JSON value in place, so that a shared cached result cannot be changed by a caller. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A value or a human-readable reason why there is none. */
export type Result<T> = { ok: true; value: T } | { ok: false; message: string };

/** Success constructor for `Result`. */
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** Failure constructor for `Result`. */
export const fail = <T = never>(message: string): Result<T> => ({ ok: false, message });
