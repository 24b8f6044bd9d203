/**
 * OpenID4VP holder routes: receive a presentation request, list and read requests, accept and
 * decline. Every route is org-scoped: any member (or the org's agent token); another org's id
 * under one's own org path is 404.
 *
 * @module
 */
import { createRouter, jsonContent as json, orgRecordRoutes } from "../http/mod.ts";
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

/** The OpenID4VP holder routes. */
export function openid4vpRoutes({ openid4vp }: Oid4vpRoutesDeps) {
  const app = createRouter();
  const routes = orgRecordRoutes(app, ["openid4vp"]);

  routes.create({
    path: "/orgs/{orgId}/openid4vp/requests",
    operationId: "receivePresentationRequest",
    summary: "Receive an OpenID4VP presentation request (by value or by reference)",
    description: "Checks the request (client identifier prefix `redirect_uri:`, " +
      "`decentralized_identifier:` or `x509_san_dns:`, signature, expiry, `response_uri`) and " +
      "evaluates its DCQL query against the org's stored credentials. A refused request is " +
      "400 naming the rule (`details[0].path`); nothing is recorded or sent.",
    body: ReceiveRequestBody,
    created: json(PresentationRequestSchema, "The request record, state request-received."),
    errors: [400, 401, 403, 409, 502, 503],
  }, (orgId, { request }) => openid4vp.receive(orgId, request));

  routes.list(
    {
      path: "/orgs/{orgId}/openid4vp/requests",
      operationId: "listPresentationRequests",
      summary: "The org's OpenID4VP presentation requests, newest first",
      query: RequestListQuery,
      page: json(PresentationRequestList, "A page of requests."),
    },
    (orgId, { state, cursor, limit }) =>
      openid4vp.list(orgId, { state: state as PresentationState | undefined, cursor, limit }),
  );

  routes.record({
    method: "get",
    path: "/orgs/{orgId}/openid4vp/requests/{id}",
    operationId: "getPresentationRequest",
    summary: "One OpenID4VP presentation request",
    params: RequestIdParams,
    ok: json(PresentationRequestSchema, "The request."),
    errors: [400, 401, 403, 404, 503],
  }, (orgId, id) => openid4vp.get(orgId, id));

  routes.record({
    method: "post",
    path: "/orgs/{orgId}/openid4vp/requests/{id}/accept",
    operationId: "acceptPresentationRequest",
    summary: "Answer a request: the presentation is built and sent to the verifier",
    description: "200 with state `done` (the verifier took it) or `failed` (it refused; " +
      "`errorMessage` says why). 409 when a needed credential query has no match (nothing is " +
      "sent) or the request is not open; 502 when the verifier cannot be reached (the record " +
      "stays `request-received`).",
    params: RequestIdParams,
    body: AcceptRequestBody,
    ok: json(PresentationRequestSchema, "The request, now done or failed."),
    errors: [400, 401, 403, 404, 409, 502, 503],
  }, (orgId, id, { selection }) => openid4vp.accept(orgId, id, { selection }));

  routes.record({
    method: "post",
    path: "/orgs/{orgId}/openid4vp/requests/{id}/decline",
    operationId: "declinePresentationRequest",
    summary: "Decline a request: the verifier is told access_denied",
    params: RequestIdParams,
    ok: json(PresentationRequestSchema, "The request, now declined."),
    errors: [400, 401, 403, 404, 409, 503],
  }, (orgId, id) => openid4vp.decline(orgId, id));

  return app;
}
