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
import type { CredentialStore } from "./store.ts";
import {
  SdJwtCredentialList,
  SdJwtCredentialSchema,
  W3cCredentialList,
  W3cCredentialSchema,
} from "./schemas.ts";

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

/** The stored credential routes. */
export function storedCredentialRoutes({ credentials }: StoredCredentialRoutesDeps) {
  const app = createRouter();
  const w3c = orgRecordRoutes(app, ["credentials"]);
  const sdJwt = orgRecordRoutes(app, ["openid4vc"]);

  w3c.list({
    path: "/orgs/{orgId}/w3c-credentials",
    operationId: "listW3cCredentials",
    summary: "The org's stored W3C verifiable credentials, newest first",
    query: PageQuery,
    page: json(W3cCredentialList, "A page of credentials."),
  }, (orgId, { cursor, limit }) => credentials.list(orgId, "ldp_vc", { limit, cursor }));

  w3c.record({
    method: "get",
    path: "/orgs/{orgId}/w3c-credentials/{id}",
    operationId: "getW3cCredential",
    summary: "One stored W3C verifiable credential",
    params: Params,
    ok: json(W3cCredentialSchema, "The credential."),
    errors: [400, 401, 403, 404, 503],
  }, (orgId, id) => credentials.get(orgId, "ldp_vc", id));

  sdJwt.list({
    path: "/orgs/{orgId}/sd-jwt-credentials",
    operationId: "listSdJwtCredentials",
    summary: "The org's stored SD-JWT VCs, newest first",
    query: PageQuery,
    page: json(SdJwtCredentialList, "A page of credentials."),
  }, (orgId, { cursor, limit }) => credentials.list(orgId, "dc+sd-jwt", { cursor, limit }));

  sdJwt.record({
    method: "get",
    path: "/orgs/{orgId}/sd-jwt-credentials/{id}",
    operationId: "getSdJwtCredential",
    summary: "One stored SD-JWT VC",
    params: SdJwtParams,
    ok: json(SdJwtCredentialSchema, "The credential."),
    errors: [400, 401, 403, 404, 503],
  }, (orgId, id) => credentials.get(orgId, "dc+sd-jwt", id));

  const checks = [
    ["w3c-credentials", "checkW3cCredentialStatus", "W3C", "ldp_vc", W3cCredentialSchema, [
      "credentials",
    ]],
    [
      "sd-jwt-credentials",
      "checkSdJwtCredentialStatus",
      "SD-JWT",
      "dc+sd-jwt",
      SdJwtCredentialSchema,
      [
        "openid4vc",
      ],
    ],
  ] as const;
  for (const [segment, operationId, name, format, schema, tags] of checks) {
    app.openapi(
      createRoute({
        method: "post",
        path: `/orgs/{orgId}/${segment}/{id}/check-status`,
        operationId,
        tags: [...tags],
        summary: `Check a stored ${name} credential's status now`,
        description: "Asks the issuer's status list again (a list older than its `ttl` is " +
          "fetched again; it is verified against the credential's issuer). 200 with the " +
          "credential and its `status`; a change of `status.state` emits " +
          "`credential.status_changed`.",
        request: { params: Params },
        responses: {
          200: json(schema, "The credential with its status, checked now."),
          ...errorResponses(400, 401, 403, 404, 503),
        },
      }),
      async (c) => {
        const { orgId, id } = c.req.valid("param");
        return c.json(await credentials.checkStatus(orgId, format, id), 200);
      },
    );
  }
  return app;
}
