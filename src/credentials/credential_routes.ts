/**
 * The stored credential routes: the org's W3C credentials and SD-JWT VCs (a page, one), and a
 * check of one's status now (`POST …/{id}/check-status`: a list older than its `ttl` is fetched
 * again; 200 with the credential and its `status`). Any member of the org (or its agent token);
 * another org's credential is 404.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errorResponses,
  jsonContent as json,
  OrgParams,
  orgRecordRoutes,
  PageQuery,
  RecordIdParam,
} from "../http/mod.ts";
import type { CredentialStore } from "./credential_store.ts";
import {
  SdJwtCredentialList,
  SdJwtCredentialSchema,
  W3cCredentialList,
  W3cCredentialSchema,
} from "./credential_schemas.ts";

/** What the routes use. */
export interface StoredCredentialRoutesDeps {
  credentials: CredentialStore;
}

const Params = OrgParams.extend(RecordIdParam.shape);
/** `{orgId, id}` as the SD-JWT read has always documented them (orgId without its pattern). */
const SdJwtParams = z.object({
  orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }),
  ...RecordIdParam.shape,
});

/** Each format's routes: the path segment, operation ids, texts, schemas and tag they keep. */
const FORMATS = [
  {
    format: "ldp_vc",
    segment: "w3c-credentials",
    name: "W3C",
    tag: "credentials",
    ids: ["listW3cCredentials", "getW3cCredential", "checkW3cCredentialStatus"],
    listed: "The org's stored W3C verifiable credentials, newest first",
    one: "One stored W3C verifiable credential",
    schema: W3cCredentialSchema,
    page: W3cCredentialList,
    params: Params,
  },
  {
    format: "dc+sd-jwt",
    segment: "sd-jwt-credentials",
    name: "SD-JWT",
    tag: "openid4vc",
    ids: ["listSdJwtCredentials", "getSdJwtCredential", "checkSdJwtCredentialStatus"],
    listed: "The org's stored SD-JWT VCs, newest first",
    one: "One stored SD-JWT VC",
    schema: SdJwtCredentialSchema,
    page: SdJwtCredentialList,
    params: SdJwtParams,
  },
] as const;

/** The stored credential routes. */
export function storedCredentialRoutes({ credentials }: StoredCredentialRoutesDeps) {
  const app = createRouter();
  for (const f of FORMATS) {
    const routes = orgRecordRoutes(app, [f.tag]);
    const [listId, getId, checkId] = f.ids;
    routes.list({
      path: `/orgs/{orgId}/${f.segment}`,
      operationId: listId,
      summary: f.listed,
      query: PageQuery,
      page: json(f.page, "A page of credentials."),
    }, (orgId, { cursor, limit }) => credentials.list(orgId, f.format, { limit, cursor }));

    routes.record({
      method: "get",
      path: `/orgs/{orgId}/${f.segment}/{id}`,
      operationId: getId,
      summary: f.one,
      params: f.params,
      ok: json(f.schema, "The credential."),
      errors: [400, 401, 403, 404, 503],
    }, (orgId, id) => credentials.get(orgId, f.format, id));

    app.openapi(
      createRoute({
        method: "post",
        path: `/orgs/{orgId}/${f.segment}/{id}/check-status`,
        operationId: checkId,
        tags: [f.tag],
        summary: `Check a stored ${f.name} credential's status now`,
        description: "Asks the issuer's status list again (a list older than its `ttl` is " +
          "fetched again; it is verified against the credential's issuer). 200 with the " +
          "credential and its `status`; a change of `status.state` emits " +
          "`credential.status_changed`.",
        request: { params: Params },
        responses: {
          200: json(f.schema, "The credential with its status, checked now."),
          ...errorResponses(400, 401, 403, 404, 503),
        },
      }),
      async (c) => {
        const { orgId, id } = c.req.valid("param");
        return c.json(await credentials.checkStatus(orgId, f.format, id), 200);
      },
    );
  }
  return app;
}
