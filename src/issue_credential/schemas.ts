/**
 * Request and response schemas of the credential routes (zod, shown in `GET /openapi.json`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { pageOf, stateListQuery, uuidSchema } from "../http/mod.ts";
import { CREDENTIAL_STATES } from "./record.ts";

/** Body of accept-credential and decline-offer: `{credentialRecordId}`. */
export const RecordIdBody = z.object({
  credentialRecordId: uuidSchema("credentialRecordId"),
}).strict().openapi("CredentialRecordIdRequest");

/** Body of accept-offer: `{credentialRecordId, bindSubjectDid?}`. */
export const AcceptOfferBody = z.object({
  credentialRecordId: uuidSchema("credentialRecordId"),
  bindSubjectDid: z.boolean().optional().openapi({
    description: "Set credentialSubject.id to the org's holder did:key when the offer leaves it " +
      "open. Off by default: issuers that auto-issue only an unchanged request (Credo " +
      "contentApproved) then wait for a person.",
  }),
}).strict().openapi("AcceptOfferRequest");

/** A credential preview attribute. */
const Attribute = z.object({
  "mime-type": z.string().optional(),
  name: z.string(),
  value: z.string(),
}).openapi("CredentialPreviewAttribute");

/** The credential exchange record (interface document 2.1). */
export const CredentialExchangeRecordSchema = z.object({
  id: z.string().openapi({ format: "uuid" }),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
  state: z.enum(CREDENTIAL_STATES),
  role: z.enum(["holder", "issuer"]),
  connectionId: z.string().openapi({ format: "uuid" }),
  threadId: z.string(),
  protocolVersion: z.string().openapi({ example: "v2" }),
  credentialAttributes: z.array(Attribute),
  credentials: z.array(z.object({
    credentialRecordType: z.string().openapi({ example: "w3c" }),
    credentialRecordId: z.string(),
  })),
  metadata: z.record(z.string(), z.record(z.string(), z.unknown())).openapi({
    description: "Keyed by metadata entry names: `_jsonld/credential` (issuer, type, proofType, " +
      "proofPurpose) or `_anoncreds/credential` (credentialDefinitionId, schemaId).",
  }),
  _tags: z.object({
    state: z.enum(CREDENTIAL_STATES),
    threadId: z.string(),
    connectionId: z.string(),
  }),
  errorMessage: z.string().optional(),
}).openapi("CredentialExchangeRecord");

/** A page of exchange records. */
export const CredentialExchangeList = pageOf(
  CredentialExchangeRecordSchema,
  "CredentialExchangeList",
);

/** `?state=&limit=&cursor=`. */
export const ListQuery = stateListQuery(CREDENTIAL_STATES);
