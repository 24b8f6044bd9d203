/**
 * Response schemas of the stored credential routes (zod, shown in `GET /openapi.json`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { pageOf } from "../http/mod.ts";
import { CredentialStatusSchema } from "../status/mod.ts";

/** A stored W3C verifiable credential. */
export const W3cCredentialSchema = z.object({
  id: z.string().openapi({ format: "uuid" }),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
  credential: z.record(z.string(), z.unknown()),
  credentialExchangeId: z.string(),
  connectionId: z.string(),
  _tags: z.object({
    claimFormat: z.literal("ldp_vc"),
    issuerId: z.string(),
    subjectIds: z.array(z.string()),
    contexts: z.array(z.string()),
    types: z.array(z.string()),
    proofTypes: z.array(z.string()),
    givenId: z.string().optional(),
  }),
  status: CredentialStatusSchema,
}).openapi("W3cCredentialRecord");

/** A page of W3C credentials. */
export const W3cCredentialList = pageOf(W3cCredentialSchema, "W3cCredentialList");

/** A stored SD-JWT VC. */
export const SdJwtCredentialSchema = z.object({
  id: z.string().openapi({ format: "uuid" }),
  orgId: z.string(),
  offerId: z.string(),
  vct: z.string(),
  issuer: z.string(),
  claims: z.record(z.string(), z.unknown()),
  compact: z.string(),
  createdAt: z.string().openapi({ format: "date-time" }),
  status: CredentialStatusSchema,
}).openapi("SdJwtCredential");

/** A page of SD-JWT VCs. */
export const SdJwtCredentialList = pageOf(SdJwtCredentialSchema, "SdJwtCredentialList");
