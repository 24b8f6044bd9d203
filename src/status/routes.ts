/**
 * `POST /orgs/{orgId}/w3c-credentials/{id}/check-status` and
 * `POST /orgs/{orgId}/sd-jwt-credentials/{id}/check-status`: check a stored credential's status
 * now (a list older than its `ttl` is fetched again); 200 with the credential and its `status`.
 * Any member of the org (or its agent token); another org's credential is 404. The credentials
 * themselves are read through the features that store them (`formats`).
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errorResponses,
  jsonContent as json,
  OrgParams,
  RecordIdParam,
} from "../http/mod.ts";
import type { StatusService } from "./service.ts";
import type { StatusSubject } from "./types.ts";

/** How a stored credential of one format is read: its record (as GET returns it) and subject. */
export interface StoredCredentialReader {
  /** 404 (an AppError) when the org has no such credential. */
  read(orgId: string, id: string): Promise<{ record: object; subject: StatusSubject }>;
  /** The record's response schema (with `status`). */
  schema: z.ZodType;
}

/** What the routes use. */
export interface StatusRoutesDeps {
  status: StatusService;
  w3c: StoredCredentialReader;
  sdJwt: StoredCredentialReader;
}

const Params = OrgParams.extend(RecordIdParam.shape);

/** The check-status routes. */
export function statusRoutes({ status, w3c, sdJwt }: StatusRoutesDeps) {
  const app = createRouter();
  const formats = [
    ["w3c-credentials", "checkW3cCredentialStatus", "W3C", w3c, ["credentials"]],
    ["sd-jwt-credentials", "checkSdJwtCredentialStatus", "SD-JWT", sdJwt, ["openid4vc"]],
  ] as const;
  for (const [segment, operationId, name, reader, tags] of formats) {
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
          200: json(reader.schema, "The credential with its status, checked now."),
          ...errorResponses(400, 401, 403, 404, 503),
        },
      }),
      async (c) => {
        const { orgId, id } = c.req.valid("param");
        const { record, subject } = await reader.read(orgId, id);
        return c.json({ ...record, status: await status.check(orgId, id, subject) }, 200);
      },
    );
  }
  return app;
}
