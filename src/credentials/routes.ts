/**
 * Credential exchange routes (holder): accept-credential (interface 4.1, also under `/didcomm`),
 * accept-offer, decline-offer, reading exchange records and stored W3C credentials.
 *
 * Check order: 401 (token) → 400 (body/params) → 404 (unknown, or another org's record) →
 * 409 (state). Org-scoped lists: 403 for a non-member of the named org.
 *
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  type AppEnv,
  createRouter,
  errorResponses,
  jsonContent as json,
  OrgParams,
  parseLimit,
  visibleToMember,
} from "../http/mod.ts";
import type { CredentialHolder } from "./holder.ts";
import {
  AcceptOfferBody,
  CredentialExchangeList,
  CredentialExchangeRecordSchema,
  IdParam,
  ListQuery,
  PageQuery,
  RecordIdBody,
  W3cCredentialList,
  W3cCredentialSchema,
} from "./schemas.ts";

/** What the credential routes use. */
export interface CredentialRoutesDeps {
  holder: CredentialHolder;
}

/** The credential routes. */
export function credentialRoutes({ holder }: CredentialRoutesDeps) {
  const app = createRouter();

  /** The record `id` and its org when the caller may see it; 404 otherwise (never leaks). */
  const visibleRecord = async (c: Context<AppEnv>, id: string) =>
    visibleToMember(
      c.var.principal,
      await holder.find(id),
      `No credential exchange record "${id}" exists.`,
    );

  const acceptCredential = (path: string, operationId: string) =>
    createRoute({
      method: "post",
      path,
      operationId,
      tags: ["credentials"],
      summary: "Accept a received credential: state done, ack sent to the issuer",
      description: "Only from `credential-received`. The state change and the outgoing " +
        "`issue-credential/2.0/ack` commit together; the ack is then delivered at least once.",
      request: {
        body: { required: true, content: { "application/json": { schema: RecordIdBody } } },
      },
      responses: {
        200: json(CredentialExchangeRecordSchema, "The record, now in state done."),
        ...errorResponses(400, 401, 404, 409, 503),
      },
    });

  for (
    const [path, id] of [
      ["/credentials/accept-credential", "acceptCredential"],
      ["/didcomm/credentials/accept-credential", "acceptCredentialDidcommAlias"],
    ]
  ) {
    app.openapi(acceptCredential(path!, id!), async (c) => {
      const { credentialRecordId: id } = c.req.valid("json");
      const { orgId } = await visibleRecord(c, id);
      return c.json(await holder.acceptCredential(orgId, id), 200);
    });
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/credentials/accept-offer",

      operationId: "acceptCredentialOffer",
      tags: ["credentials"],
      summary: "Accept a credential offer: the request is sent to the issuer",
      request: {
        body: { required: true, content: { "application/json": { schema: AcceptOfferBody } } },
      },
      responses: {
        200: json(CredentialExchangeRecordSchema, "The record, now in state request-sent."),
        ...errorResponses(400, 401, 404, 409, 503),
      },
    }),
    async (c) => {
      const { credentialRecordId: id, bindSubjectDid } = c.req.valid("json");
      const { orgId } = await visibleRecord(c, id);
      return c.json(await holder.acceptOffer(orgId, id, { bindSubjectDid }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/credentials/decline-offer",

      operationId: "declineCredentialOffer",
      tags: ["credentials"],
      summary: "Decline a credential offer: state declined, problem report sent",
      request: {
        body: { required: true, content: { "application/json": { schema: RecordIdBody } } },
      },
      responses: {
        200: json(CredentialExchangeRecordSchema, "The record, now in state declined."),
        ...errorResponses(400, 401, 404, 409, 503),
      },
    }),
    async (c) => {
      const { credentialRecordId: id } = c.req.valid("json");
      const { orgId } = await visibleRecord(c, id);
      return c.json(await holder.declineOffer(orgId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/credentials/{id}",

      operationId: "getCredentialExchange",
      tags: ["credentials"],
      summary: "One credential exchange record",
      request: { params: IdParam },
      responses: {
        200: json(CredentialExchangeRecordSchema, "The record."),
        ...errorResponses(400, 401, 404, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json((await visibleRecord(c, id)).record, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/credentials",

      operationId: "listCredentialExchanges",
      tags: ["credentials"],
      summary: "The org's credential exchange records, newest first",
      request: { params: OrgParams, query: ListQuery },
      responses: {
        200: json(CredentialExchangeList, "A page of records."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { state, limit, cursor } = c.req.valid("query");
      return c.json(await holder.list(orgId, { limit: parseLimit(limit), cursor, state }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/w3c-credentials",

      operationId: "listW3cCredentials",
      tags: ["credentials"],
      summary: "The org's stored W3C verifiable credentials, newest first",
      request: { params: OrgParams, query: PageQuery },
      responses: {
        200: json(W3cCredentialList, "A page of credentials."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { limit, cursor } = c.req.valid("query");
      return c.json(await holder.listW3c(orgId, { limit: parseLimit(limit), cursor }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/w3c-credentials/{id}",

      operationId: "getW3cCredential",
      tags: ["credentials"],
      summary: "One stored W3C verifiable credential",
      request: { params: OrgParams.merge(IdParam) },
      responses: {
        200: json(W3cCredentialSchema, "The credential."),
        ...errorResponses(400, 401, 403, 404, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      return c.json(await holder.getW3c(orgId, id), 200);
    },
  );

  return app;
}
