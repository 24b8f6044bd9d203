/**
 * Who may act on an organization: the bearer-auth middleware (attached once per path prefix in
 * `app.ts`, as hono's own `bearer-auth` is), the one org-id rule and the one org access check
 * (`requireOrg(role)` for an org in the path; `checkOrgAccess` for an org named in a body or
 * query).
 *
 * Check order: 401 (token) → 400 (malformed org id) → 403 (role).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { authenticate } from "./bearer.ts";
import { badRequest, clip, forbidden, notFound } from "../base/mod.ts";
import {
  ADMIN_ROLES,
  hasOrgRole,
  MEMBER_ROLES,
  type Principal,
  type TokenVerifier,
} from "./auth.ts";
import type { AppEnv } from "./env.ts";

/** Org ids: a letter or digit, then up to 63 letters, digits, `.`, `_` or `-`. */
export const ORG_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const RULE =
  "must start with a letter or digit and have at most 64 letters, digits, '.', '_' or '-'";

/** The org id schema (bodies and queries); malformed ids are 400 with the rule. */
export const OrgId = z.string().regex(ORG_ID_RE, `Organization id ${RULE}.`).openapi({
  example: "org-a",
});

/** Path parameter `orgId`. */
export const OrgParams = z.object({
  orgId: OrgId.openapi({ param: { name: "orgId", in: "path" }, example: "org-a" }),
});

/** 400 with `details` unless `orgId` is a valid org id. */
export function assertOrgId(orgId: string, path = "orgId"): string {
  if (!ORG_ID_RE.test(orgId)) {
    throw badRequest(`The organization id "${clip(orgId, 70)}" is not valid: it ${RULE}.`, [
      { path, message: `Organization id ${RULE}.` },
    ]);
  }
  return orgId;
}

/**
 * The role an operation needs in its org: `admin` (owner or admin, with an identity provider
 * token: agent tokens never administer) or `member` (any org role, or the org's agent token).
 */
export type OrgRole = "admin" | "member";

/** 400 for a malformed org id, 403 unless `p` has `role` in `orgId`. Returns the org id. */
export function checkOrgAccess(p: Principal, orgId: string, role: OrgRole): string {
  assertOrgId(orgId);
  if (role === "admin") {
    if (p.kind === "agent") {
      throw forbidden(`Agent tokens cannot administer organization "${orgId}".`);
    }
    if (!hasOrgRole(p, orgId, ADMIN_ROLES)) {
      throw forbidden(`You need the owner or admin role in organization "${orgId}".`);
    }
  } else if (!hasOrgRole(p, orgId, MEMBER_ROLES)) {
    throw forbidden(`You are not a member of organization "${orgId}".`);
  }
  return orgId;
}

/** True when the caller is a member of `orgId` (any org role, or that org's agent token). */
export function isOrgMember(p: Principal, orgId: string): boolean {
  return hasOrgRole(p, orgId, MEMBER_ROLES);
}

/**
 * `found` (a record named by id alone) when the caller is a member of its org; otherwise the
 * same 404 as for no record at all, so another org's record never leaks (CONTRACT).
 */
export function visibleToMember<T extends { orgId: string }>(
  p: Principal,
  found: T | null | undefined,
  missing: string,
): T {
  if (!found || !isOrgMember(p, found.orgId)) throw notFound(missing);
  return found;
}

/** Options of {@link bearerAuth}. */
export interface BearerAuthOptions {
  /** The service's token verifier (`compose.ts`). */
  verifier: TokenVerifier;
}

/**
 * The bearer-auth middleware: verifies `Authorization: Bearer <token>` and puts the principal in
 * `c.var.principal`; 401 with the RFC 6750 challenge otherwise (CONTRACT "Authentication and
 * authorization"). Its options are checked once, when it is made. Attach it per path prefix:
 *
 * @example
 * ```ts
 * app.use("/orgs/*", bearerAuth({ verifier }));
 * ```
 */
export function bearerAuth(opts: BearerAuthOptions): MiddlewareHandler<AppEnv> {
  const verifier = opts?.verifier;
  if (typeof verifier?.verify !== "function") {
    throw new TypeError("bearerAuth needs a token verifier ({ verifier }).");
  }
  return async (c: Context<AppEnv>, next) => {
    c.set("principal", await authenticate(verifier, c.req.header("authorization")));
    await next();
  };
}

/**
 * {@link checkOrgAccess} for the `orgId` path parameter, on the principal {@link bearerAuth} set
 * (it runs after it: attach both to the prefix, or this one to a route under it).
 */
export function requireOrg(role: OrgRole): MiddlewareHandler<AppEnv> {
  return async (c: Context<AppEnv>, next) => {
    const p = c.get("principal");
    if (p === undefined) throw new Error(`requireOrg("${role}") runs without bearerAuth before it`);
    checkOrgAccess(p, c.req.param("orgId") ?? "", role);
    await next();
  };
}
