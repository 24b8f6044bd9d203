/**
 * DID resolution: the resolver (methods, cache) and the DID routes (`didRoutes`: the door every
 * `GET /dids/{did}` and `/1.0/…` request goes through). Other features get the one resolver the
 * composition built and call `resolver.resolve(did)`:
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
export { didRoutes, type DidRoutesDeps, resolverInfo } from "./http/routes.ts";
export type { AnswerDid } from "./http/answer.ts";
export type { ResolveOptions } from "./cache/cache.ts";
export {
  type DidDocument,
  type DidDocumentMetadata,
  type DidMethod,
  type DidResolutionMetadata,
  type DidResolutionResult,
  type DidService,
  type ParsedDid,
  type Resolution,
  resolutionError,
  type ResolveContext,
  type VerificationMethod,
} from "./types.ts";
export { parseDid, parseDidWithReason } from "./syntax.ts";
export { type DidCommService, didCommServices } from "./keys/didcomm_services.ts";
export { createPeerDid2 } from "./methods/peer.ts";
export { keyFromVerificationMethod, publicKeyToJwk } from "./keys/key_material.ts";
