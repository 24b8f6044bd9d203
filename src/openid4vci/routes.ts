/**
 * OpenID4VCI holder routes: receive an offer, list and read offers, accept and decline (the
 * SD-JWT VCs they bring are read through `credentials/`). Every route is org-scoped: any member (or the org's agent token); another
 * org's id under one's own org path is 404.
 *
 * @module
 */
import { createRouter, jsonContent as json, orgRecordRoutes } from "../http/mod.ts";
import { badRequest } from "../base/mod.ts";
import type { Oid4vcHolder } from "./holder.ts";
import {
  AcceptOpenidOfferBody,
  OfferList,
  OfferListQuery,
  OfferRecordSchema,
  OrgIdParams,
  ReceiveOfferBody,
} from "./schemas.ts";

/** What the routes use. */
export interface Oid4vcRoutesDeps {
  openid4vc: Oid4vcHolder;
}

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
  const routes = orgRecordRoutes(app, ["openid4vc"]);

  routes.create({
    path: "/orgs/{orgId}/openid4vc/offers",
    operationId: "receiveOpenidCredentialOffer",
    summary: "Receive an OpenID4VCI credential offer (by value or by reference)",
    body: ReceiveOfferBody,
    created: json(OfferRecordSchema, "The offer record, state offer-received."),
    errors: [400, 401, 403, 409, 502, 503],
  }, (orgId, { credentialOffer }) => {
    if (isPresentationRequest(credentialOffer)) {
      throw badRequest(
        `This is an OpenID4VP presentation request, not a credential offer; post it as {"request": …} to /orgs/${orgId}/openid4vp/requests.`,
      );
    }
    return openid4vc.receiveOffer(orgId, credentialOffer);
  });

  routes.list({
    path: "/orgs/{orgId}/openid4vc/offers",
    operationId: "listOpenidCredentialOffers",
    summary: "The org's OpenID4VCI offers, newest first",
    query: OfferListQuery,
    page: json(OfferList, "A page of offers."),
  }, (orgId, query) => openid4vc.list(orgId, query));

  routes.record({
    method: "get",
    path: "/orgs/{orgId}/openid4vc/offers/{id}",
    operationId: "getOpenidCredentialOffer",
    summary: "One OpenID4VCI offer",
    params: OrgIdParams,
    ok: json(OfferRecordSchema, "The offer."),
    errors: [400, 401, 403, 404, 503],
  }, (orgId, id) => openid4vc.get(orgId, id));

  routes.record({
    method: "post",
    path: "/orgs/{orgId}/openid4vc/offers/{id}/accept",
    operationId: "acceptOpenidCredentialOffer",
    summary: "Accept an offer: token, proofs, credentials, verification, storage",
    description: "200 with state `done` (and `credentialIds`: every credential of the answer), " +
      "`deferred` (the issuer sends the credential later: the service polls its deferred " +
      "endpoint until `done` or `failed`) or `failed` (a credential did not verify; nothing " +
      "stored). 502 when the issuer cannot be reached or refuses; the record then stays " +
      "`offer-received`.",
    params: OrgIdParams,
    body: AcceptOpenidOfferBody,
    ok: json(OfferRecordSchema, "The offer, now done, deferred or failed."),
    errors: [400, 401, 403, 404, 409, 502, 503],
  }, (orgId, id, { txCode }) => openid4vc.accept(orgId, id, { txCode }));

  routes.record({
    method: "post",
    path: "/orgs/{orgId}/openid4vc/offers/{id}/decline",
    operationId: "declineOpenidCredentialOffer",
    summary: "Decline an offer (nothing is sent to the issuer)",
    params: OrgIdParams,
    ok: json(OfferRecordSchema, "The offer, now declined."),
    errors: [400, 401, 403, 404, 409, 503],
  }, (orgId, id) => openid4vc.decline(orgId, id));

  return app;
}
