/**
 * DID resolution: the resolver (methods, cache) and `GET /dids/{did}`. Other features get the
 * one resolver the composition built and call `resolver.resolve(did)`:
 *
 * ```ts
 * const r = await resolver.resolve("did:peer:2.Vz6Mk...");
 * if (r.didDocument) { ... } else { r.didResolutionMetadata.error; r.didResolutionMetadata.message }
 * ```
 *
 * @module
 */
export {
  createDidResolver,
  type DidResolver,
  type DidResolverDeps,
  type DidResolverOptions,
} from "./create.ts";
export { didRoutes, type DidRoutesDeps } from "./routes.ts";
export type { DidAnswer } from "./answer.ts";
export type { ResolveOptions } from "./cache.ts";
export {
  type DidDocument,
  type DidDocumentMetadata,
  type DidMethod,
  type DidResolutionMetadata,
  type DidResolutionResult,
  type DidService,
  type ParsedDid,
  resolutionError,
  type ResolveContext,
  type VerificationMethod,
} from "./types.ts";
export { parseDid, parseDidWithReason } from "./syntax.ts";
export { type DidCommService, didCommServices } from "./didcomm_services.ts";
export { createPeerDid2 } from "./methods/peer.ts";
export { keyFromVerificationMethod, publicKeyToJwk } from "./key_material.ts";
