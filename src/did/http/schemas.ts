/**
 * OpenAPI schemas of DID resolution (interface document section 2.2). Documentation only: the
 * route serves pre-serialized results and does not validate with these on the hot path.
 */
import { z } from "@hono/zod-openapi";

/** A verification method with its key in base58 (other `publicKey*` forms may appear). */
export const VerificationMethodSchema = z.object({
  id: z.string(),
  type: z.string().openapi({ example: "Ed25519VerificationKey2018" }),
  controller: z.string(),
  publicKeyBase58: z.string().optional(),
}).catchall(z.unknown()).openapi("VerificationMethod");

const relationship = z.array(z.union([z.string(), VerificationMethodSchema]));

/** A DID document: free-form, with the DID Core members described. */
export const DidDocumentSchema = z.object({
  "@context": z.array(z.string()).optional(),
  id: z.string().openapi({ example: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK" }),
  verificationMethod: z.array(VerificationMethodSchema).optional(),
  authentication: relationship.optional(),
  assertionMethod: relationship.optional(),
  capabilityInvocation: relationship.optional(),
  capabilityDelegation: relationship.optional(),
  keyAgreement: relationship.optional(),
  service: z.array(z.record(z.string(), z.unknown())).optional(),
}).catchall(z.unknown()).openapi("DidDocument");

/** didDocumentMetadata. */
export const DidDocumentMetadataSchema = z.object({
  created: z.string().optional(),
  updated: z.string().optional(),
  deactivated: z.boolean().optional(),
  versionId: z.string().optional(),
  nextUpdate: z.string().optional(),
  nextVersionId: z.string().optional(),
  equivalentId: z.string().optional(),
  canonicalId: z.string().optional(),
}).catchall(z.unknown()).openapi("DidDocumentMetadata");

/** didResolutionMetadata. */
export const DidResolutionMetadataSchema = z.object({
  contentType: z.string().optional().openapi({ example: "application/did+ld+json" }),
  error: z.string().optional().openapi({
    description:
      "invalidDid (400), notFound (404), representationNotSupported (406), methodNotSupported (501), internalError (500)",
  }),
  message: z.string().optional(),
  servedFromCache: z.boolean().optional().openapi({
    description:
      "true exactly when the answer is a stored network resolution (did:web, universal resolver). " +
      "Results computed from the DID itself (did:key, did:jwk, did:peer) are false.",
  }),
}).catchall(z.unknown()).openapi("DidResolutionMetadata");

/** The DidResolutionResult: always all three members, also on failure. */
export const DidResolutionResultSchema = z.object({
  didDocument: DidDocumentSchema.nullable(),
  didDocumentMetadata: DidDocumentMetadataSchema,
  didResolutionMetadata: DidResolutionMetadataSchema,
}).openapi("DidResolutionResult");
