/**
 * Request and response schemas of the OpenID4VP holder routes (zod, shown in `/openapi.json`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { pageOf, RecordIdParam, stateListQuery } from "../http/mod.ts";
import { PRESENTATION_STATES } from "./record.ts";

const STATES = PRESENTATION_STATES as unknown as readonly [string, ...string[]];

/** `POST /orgs/{orgId}/openid4vp/requests` body. */
export const ReceiveRequestBody = z.object({
  request: z.string().min(1).max(64 * 1024).openapi({
    description: "An OpenID4VP authorization request: `openid4vp://?…` (also " +
      "`openid4vp://authorize?…`, `haip://…`, or an `https://` link with the same query), by " +
      "value or by reference (`request_uri`, with `request_uri_method=post` when the verifier " +
      "asks for POST).",
    example: "openid4vp://?client_id=decentralized_identifier%3Adid%3Akey%3Az6Mk…" +
      "&request_uri=https%3A%2F%2Fverifier.example%2Frequests%2F1",
  }),
}).strict().openapi("ReceivePresentationRequest");

/** Accept body: `{selection?}`. */
export const AcceptRequestBody = z.object({
  selection: z.record(z.string().max(200), z.string().max(200)).optional().openapi({
    description: "Which stored credential answers which credential query " +
      '(`{"<credential query id>": "<stored credential id>"}`); default: the newest match of ' +
      "each query the answer needs.",
  }),
}).strict().openapi("AcceptPresentationRequest");

/** `{orgId, id}` path parameters. */
export const RequestIdParams = z.object({
  orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }),
  ...RecordIdParam.shape,
});

/** `?state=&limit=&cursor=`. */
export const RequestListQuery = stateListQuery(STATES);

const ClaimPath = z.array(z.union([z.string(), z.number()]));

/** A presentation request record. */
export const PresentationRequestSchema = z.object({
  id: z.string().openapi({ format: "uuid" }),
  orgId: z.string(),
  state: z.enum(STATES),
  verifier: z.object({
    clientId: z.string().openapi({ description: "The whole client_id, prefix included." }),
    prefix: z.string(),
    name: z.string().optional().openapi({ description: "client_name from client_metadata." }),
  }),
  responseMode: z.enum(["direct_post", "direct_post.jwt"]),
  responseUri: z.string(),
  queries: z.array(z.object({
    id: z.string(),
    required: z.boolean(),
    matches: z.array(z.object({
      credentialId: z.string(),
      format: z.enum(["dc+sd-jwt", "ldp_vc"]),
      disclosedClaims: z.array(ClaimPath).openapi({
        description: "The claim paths an answer with this credential would disclose.",
      }),
    })),
  })),
  redirectUri: z.string().optional(),
  presented: z.array(z.object({ queryId: z.string(), credentialId: z.string() })).optional(),
  errorMessage: z.string().optional(),
  expiresAt: z.string().optional().openapi({ format: "date-time" }),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
}).openapi("PresentationRequest");

/** A page of presentation requests. */
export const PresentationRequestList = pageOf(PresentationRequestSchema, "PresentationRequestList");
