/**
 * Request and response schemas of the OpenID4VCI holder routes (zod, shown in `/openapi.json`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { pageOf, RecordIdParam, stateListQuery } from "../http/mod.ts";

export const OFFER_STATES = ["offer-received", "deferred", "done", "declined", "failed"] as const;

/** `POST /orgs/{orgId}/openid4vc/offers` body. */
export const ReceiveOfferBody = z.object({
  credentialOffer: z.string().min(1).max(64 * 1024).openapi({
    description: "An `openid-credential-offer://` URI with `credential_offer=` (by value) or " +
      "`credential_offer_uri=` (by reference).",
    example:
      "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fissuer.example%2Foffers%2F1",
  }),
}).strict().openapi("ReceiveCredentialOfferRequest");

/** Accept body: `{txCode?}`. */
export const AcceptOpenidOfferBody = z.object({
  txCode: z.string().min(1).max(256).optional().openapi({
    description: "The transaction code the issuer sent out of band, when the offer asks for one.",
  }),
}).strict().openapi("AcceptOpenidOfferRequest");

/** `{orgId, id}` path parameters. */
export const OrgIdParams = z.object({
  orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }),
  ...RecordIdParam.shape,
});

/** `?state=&limit=&cursor=`. */
export const OfferListQuery = stateListQuery(OFFER_STATES);

/** An offer record. */
export const OfferRecordSchema = z.object({
  id: z.string().openapi({ format: "uuid" }),
  orgId: z.string(),
  state: z.enum(OFFER_STATES),
  credentialIssuer: z.string(),
  credentialConfigurationIds: z.array(z.string()),
  issuerName: z.string().optional(),
  txCodeRequired: z.boolean(),
  credentialIds: z.array(z.string()),
  errorMessage: z.string().optional(),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
}).openapi("OpenidCredentialOffer");

/** A page of offers. */
export const OfferList = pageOf(OfferRecordSchema, "OpenidCredentialOfferList");
