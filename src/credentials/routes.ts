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
import type { AppDeps } from "../deps.ts";
import { errorResponses } from "../http/openapi.ts";
import { notFound } from "../errors.ts";
import { isOrgMember, requireBearer, requireOrgMember } from "../http/auth.ts";
import type { AppEnv } from "../http/env.ts";
import { createRouter } from "../http/router.ts";
import { keys } from "../kv/keys.ts";
import { listPage, parseLimit } from "../kv/store.ts";
import type { CredentialHolder } from "./holder.ts";
import type { StoredExchange } from "./record.ts";
import {
  AcceptOfferBody,
  CredentialExchangeList,
  CredentialExchangeRecordSchema,
  IdParam,
  ListQuery,
  OrgParam,
  PageQuery,
  RecordIdBody,
  W3cCredentialList,
  W3cCredentialSchema,
} from "./schemas.ts";
import { readExchange, type W3cCredentialRecord } from "./store.ts";

const json = <T>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The credential routes; `holder` is looked up per request (set up after the app is built). */
export function credentialRoutes(deps: AppDeps, holder: () => CredentialHolder) {
  const app = createRouter();

  const auth = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    c.set("principal", await deps.verifier.verify(requireBearer(c.req.header("authorization"))));
    await next();
  };

  /** The org of record `id` when the caller may see it; 404 otherwise (existence never leaks). */
  const orgOfRecord = async (c: Context<AppEnv>, id: string): Promise<string> => {
    const entry = await readExchange(deps.kv, id);
    if (!entry || !isOrgMember(c.var.principal, entry.value.orgId)) {
      throw notFound(`No credential exchange record "${id}" exists.`);
    }
    return entry.value.orgId;
  };

  const acceptCredential = (path: string) =>
    createRoute({
      method: "post",
      path,
      tags: ["credentials"],
      summary: "Accept a received credential: state done, ack sent to the issuer",
      description: "Only from `credential-received`. The state change and the outgoing " +
        "`issue-credential/2.0/ack` commit together; the ack is then delivered at least once.",
      middleware: [auth] as const,
      request: {
        body: { required: true, content: { "application/json": { schema: RecordIdBody } } },
      },
      responses: {
        200: json(CredentialExchangeRecordSchema, "The record, now in state done."),
        ...errorResponses(400, 401, 404, 409, 503),
      },
    });

  for (const path of ["/credentials/accept-credential", "/didcomm/credentials/accept-credential"]) {
    app.openapi(acceptCredential(path), async (c) => {
      const { credentialRecordId: id } = c.req.valid("json");
      const orgId = await orgOfRecord(c, id);
      return c.json(await holder().acceptCredential(orgId, id), 200);
    });
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/credentials/accept-offer",
      tags: ["credentials"],
      summary: "Accept a credential offer: the request is sent to the issuer",
      middleware: [auth] as const,
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
      const orgId = await orgOfRecord(c, id);
      return c.json(await holder().acceptOffer(orgId, id, { bindSubjectDid }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/credentials/decline-offer",
      tags: ["credentials"],
      summary: "Decline a credential offer: state declined, problem report sent",
      middleware: [auth] as const,
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
      const orgId = await orgOfRecord(c, id);
      return c.json(await holder().declineOffer(orgId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/credentials/{id}",
      tags: ["credentials"],
      summary: "One credential exchange record",
      middleware: [auth] as const,
      request: { params: IdParam },
      responses: {
        200: json(CredentialExchangeRecordSchema, "The record."),
        ...errorResponses(400, 401, 404, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const entry = await readExchange(deps.kv, id);
      if (!entry || !isOrgMember(c.var.principal, entry.value.orgId)) {
        throw notFound(`No credential exchange record "${id}" exists.`);
      }
      return c.json(entry.value.record, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/credentials",
      tags: ["credentials"],
      summary: "The org's credential exchange records, newest first",
      middleware: [auth] as const,
      request: { params: OrgParam, query: ListQuery },
      responses: {
        200: json(CredentialExchangeList, "A page of records."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      requireOrgMember(c.var.principal, orgId);
      const { state, limit, cursor } = c.req.valid("query");
      const page = await listPage<StoredExchange>(deps.kv, keys.credentialPrefix(orgId), {
        limit: parseLimit(limit),
        cursor,
        filter: state ? (s) => s.record.state === state : undefined,
      });
      return c.json({ data: page.data.map((s) => s.record), nextCursor: page.nextCursor }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/w3c-credentials",
      tags: ["credentials"],
      summary: "The org's stored W3C verifiable credentials, newest first",
      middleware: [auth] as const,
      request: { params: OrgParam, query: PageQuery },
      responses: {
        200: json(W3cCredentialList, "A page of credentials."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      requireOrgMember(c.var.principal, orgId);
      const { limit, cursor } = c.req.valid("query");
      const page = await listPage<W3cCredentialRecord>(deps.kv, keys.w3cCredentialPrefix(orgId), {
        limit: parseLimit(limit),
        cursor,
      });
      return c.json(page, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/w3c-credentials/{id}",
      tags: ["credentials"],
      summary: "One stored W3C verifiable credential",
      middleware: [auth] as const,
      request: { params: OrgParam.merge(IdParam) },
      responses: {
        200: json(W3cCredentialSchema, "The credential."),
        ...errorResponses(400, 401, 403, 404, 503),
      },
    }),
    async (c) => {
      const { orgId, id } = c.req.valid("param");
      requireOrgMember(c.var.principal, orgId);
      const entry = await deps.kv.get<W3cCredentialRecord>(keys.w3cCredential(orgId, id));
      if (!entry.value) throw notFound(`No W3C credential "${id}" in organization "${orgId}".`);
      return c.json(entry.value, 200);
    },
  );

  return app;
}
