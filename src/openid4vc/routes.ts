/**
 * OpenID4VCI holder routes: receive an offer, list and read offers, accept and decline, read the
 * stored SD-JWT VCs. Every route is org-scoped: any member (or the org's agent token); another
 * org's id under one's own org path is 404.
 *
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errorResponses,
  jsonContent as json,
  OrgParams,
  parseLimit,
} from "../http/mod.ts";
import { badRequest } from "../errors.ts";
import type { Oid4vcHolder } from "./holder.ts";
import {
  AcceptOpenidOfferBody,
  CredentialPageQuery,
  OfferList,
  OfferListQuery,
  OfferRecordSchema,
  OrgIdParams,
  ReceiveOfferBody,
  SdJwtCredentialList,
  SdJwtCredentialSchema,
} from "./schemas.ts";

/** What the routes use. */
export interface Oid4vcRoutesDeps {
  openid4vc: Oid4vcHolder;
}

const TAG = ["openid4vc"];

/** An OpenID4VP authorization request (by its scheme, or a link with `response_type=vp_token`). */
function isPresentationRequest(uri: string): boolean {
  const t = uri.trim();
  if (/^(openid4vp|haip|eudi-openid4vp|mdoc-openid4vp):/i.test(t)) return true;
  const q = t.indexOf("?");
  if (q < 0) return false;
  const params = new URLSearchParams(t.slice(q + 1));
  return !params.has("credential_offer") && !params.has("credential_offer_uri") &&
    (params.get("response_type") === "vp_token" ||
      (params.has("client_id") && params.has("request_uri")));
}

/** The OpenID4VCI holder routes. */
export function openid4vcRoutes({ openid4vc }: Oid4vcRoutesDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/openid4vc/offers",
      operationId: "receiveOpenidCredentialOffer",
      tags: TAG,
      summary: "Receive an OpenID4VCI credential offer (by value or by reference)",
      request: {
        params: OrgParams,
        body: { required: true, content: { "application/json": { schema: ReceiveOfferBody } } },
      },
      responses: {
        201: json(OfferRecordSchema, "The offer record, state offer-received."),
        ...errorResponses(400, 401, 403, 409, 502, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { credentialOffer } = c.req.valid("json");
      if (isPresentationRequest(credentialOffer)) {
        throw badRequest(
          `This is an OpenID4VP presentation request, not a credential offer; post it as {"request": …} to /orgs/${orgId}/openid4vp/requests.`,
        );
      }
      return c.json(await openid4vc.receiveOffer(orgId, credentialOffer), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/openid4vc/offers",
      operationId: "listOpenidCredentialOffers",
      tags: TAG,
      summary: "The org's OpenID4VCI offers, newest first",
      request: { params: OrgParams, query: OfferListQuery },
      responses: {
        200: json(OfferList, "A page of offers."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { state, limit, cursor } = c.req.valid("query");
      return c.json(await openid4vc.list(orgId, { state, cursor, limit: parseLimit(limit) }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/openid4vc/offers/{id}",
      operationId: "getOpenidCredentialOffer",
      tags: TAG,
      summary: "One OpenID4VCI offer",
      request: { params: OrgIdParams },
      responses: {
        200: json(OfferRecordSchema, "The offer."),
        ...errorResponses(400, 401, 403, 404, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      return c.json(await openid4vc.get(orgId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/openid4vc/offers/{id}/accept",
      operationId: "acceptOpenidCredentialOffer",
      tags: TAG,
      summary: "Accept an offer: token, proofs, credentials, verification, storage",
      description: "200 with state `done` (and `credentialIds`: every credential of the answer), " +
        "`deferred` (the issuer sends the credential later: the service polls its deferred " +
        "endpoint until `done` or `failed`) or `failed` (a credential did not verify; nothing " +
        "stored). 502 when the issuer cannot be reached or refuses; the record then stays " +
        "`offer-received`.",
      request: {
        params: OrgIdParams,
        body: {
          required: false,
          content: { "application/json": { schema: AcceptOpenidOfferBody } },
        },
      },
      responses: {
        200: json(OfferRecordSchema, "The offer, now done, deferred or failed."),
        ...errorResponses(400, 401, 403, 404, 409, 502, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      const body = c.req.header("content-length") === "0" || !c.req.header("content-type")
        ? {}
        : c.req.valid("json") ?? {};
      return c.json(await openid4vc.accept(orgId, id, { txCode: body.txCode }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/openid4vc/offers/{id}/decline",
      operationId: "declineOpenidCredentialOffer",
      tags: TAG,
      summary: "Decline an offer (nothing is sent to the issuer)",
      request: { params: OrgIdParams },
      responses: {
        200: json(OfferRecordSchema, "The offer, now declined."),
        ...errorResponses(400, 401, 403, 404, 409, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      return c.json(await openid4vc.decline(orgId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/sd-jwt-credentials",
      operationId: "listSdJwtCredentials",
      tags: TAG,
      summary: "The org's stored SD-JWT VCs, newest first",
      request: { params: OrgParams, query: CredentialPageQuery },
      responses: {
        200: json(SdJwtCredentialList, "A page of credentials."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { limit, cursor } = c.req.valid("query");
      return c.json(await openid4vc.credentials(orgId, { cursor, limit: parseLimit(limit) }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/sd-jwt-credentials/{id}",
      operationId: "getSdJwtCredential",
      tags: TAG,
      summary: "One stored SD-JWT VC",
      request: { params: OrgIdParams },
      responses: {
        200: json(SdJwtCredentialSchema, "The credential."),
        ...errorResponses(400, 401, 403, 404, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      return c.json(await openid4vc.credential(orgId, id), 200);
    },
  );

  return app;
}
