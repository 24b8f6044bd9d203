/**
 * OpenID4VP holder routes: receive a presentation request, list and read requests, accept and
 * decline. Every route is org-scoped: any member (or the org's agent token); another org's id
 * under one's own org path is 404.
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
import type { Oid4vpHolder } from "./holder.ts";
import type { PresentationState } from "./record.ts";
import {
  AcceptRequestBody,
  PresentationRequestList,
  PresentationRequestSchema,
  ReceiveRequestBody,
  RequestIdParams,
  RequestListQuery,
} from "./schemas.ts";

/** What the routes use. */
export interface Oid4vpRoutesDeps {
  openid4vp: Oid4vpHolder;
}

const TAG = ["openid4vp"];

/** The OpenID4VP holder routes. */
export function openid4vpRoutes({ openid4vp }: Oid4vpRoutesDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/openid4vp/requests",
      operationId: "receivePresentationRequest",
      tags: TAG,
      summary: "Receive an OpenID4VP presentation request (by value or by reference)",
      description: "Checks the request (client identifier prefix `redirect_uri:`, " +
        "`decentralized_identifier:` or `x509_san_dns:`, signature, expiry, `response_uri`) and " +
        "evaluates its DCQL query against the org's stored credentials. A refused request is " +
        "400 naming the rule (`details[0].path`); nothing is recorded or sent.",
      request: {
        params: OrgParams,
        body: { required: true, content: { "application/json": { schema: ReceiveRequestBody } } },
      },
      responses: {
        201: json(PresentationRequestSchema, "The request record, state request-received."),
        ...errorResponses(400, 401, 403, 409, 502, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { request } = c.req.valid("json");
      return c.json(await openid4vp.receive(orgId, request), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/openid4vp/requests",
      operationId: "listPresentationRequests",
      tags: TAG,
      summary: "The org's OpenID4VP presentation requests, newest first",
      request: { params: OrgParams, query: RequestListQuery },
      responses: {
        200: json(PresentationRequestList, "A page of requests."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { state, limit, cursor } = c.req.valid("query");
      return c.json(
        await openid4vp.list(orgId, {
          state: state as PresentationState | undefined,
          cursor,
          limit: parseLimit(limit),
        }),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/openid4vp/requests/{id}",
      operationId: "getPresentationRequest",
      tags: TAG,
      summary: "One OpenID4VP presentation request",
      request: { params: RequestIdParams },
      responses: {
        200: json(PresentationRequestSchema, "The request."),
        ...errorResponses(400, 401, 403, 404, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      return c.json(await openid4vp.get(orgId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/openid4vp/requests/{id}/accept",
      operationId: "acceptPresentationRequest",
      tags: TAG,
      summary: "Answer a request: the presentation is built and sent to the verifier",
      description: "200 with state `done` (the verifier took it) or `failed` (it refused; " +
        "`errorMessage` says why). 409 when a needed credential query has no match (nothing is " +
        "sent) or the request is not open; 502 when the verifier cannot be reached (the record " +
        "stays `request-received`).",
      request: {
        params: RequestIdParams,
        body: { required: false, content: { "application/json": { schema: AcceptRequestBody } } },
      },
      responses: {
        200: json(PresentationRequestSchema, "The request, now done or failed."),
        ...errorResponses(400, 401, 403, 404, 409, 502, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      const body = c.req.header("content-length") === "0" || !c.req.header("content-type")
        ? {}
        : c.req.valid("json") ?? {};
      return c.json(await openid4vp.accept(orgId, id, { selection: body.selection }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/openid4vp/requests/{id}/decline",
      operationId: "declinePresentationRequest",
      tags: TAG,
      summary: "Decline a request: the verifier is told access_denied",
      request: { params: RequestIdParams },
      responses: {
        200: json(PresentationRequestSchema, "The request, now declined."),
        ...errorResponses(400, 401, 403, 404, 409, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      return c.json(await openid4vp.decline(orgId, id), 200);
    },
  );

  return app;
}
