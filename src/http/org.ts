/**
 * Who may act on an organization: the one org-id rule and the one org access check, used by
 * every org-scoped route (`requireOrg(verifier, role)` for an org in the path; `checkOrgAccess`
 * for an org named in a body or query).
 *
 * Check order: 401 (token) → 400 (malformed org id) → 403 (role).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { badRequest, forbidden } from "../errors.ts";
import {
  ADMIN_ROLES,
  hasOrgRole,
  MEMBER_ROLES,
  type Principal,
  requireBearer,
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
    const shown = orgId.length > 70 ? orgId.slice(0, 67) + "..." : orgId;
    throw badRequest(`The organization id "${shown}" is not valid: it ${RULE}.`, [
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

/** Verifies the bearer token and stores the principal in `c.var.principal`. */
export function authenticate(verifier: TokenVerifier): MiddlewareHandler<AppEnv> {
  return async (c: Context<AppEnv>, next) => {
    c.set("principal", await verifier.verify(requireBearer(c.req.header("authorization"))));
    await next();
  };
}

/** {@link authenticate}, then {@link checkOrgAccess} for the `orgId` path parameter. */
export function requireOrg(verifier: TokenVerifier, role: OrgRole): MiddlewareHandler<AppEnv> {
  return async (c: Context<AppEnv>, next) => {
    const p = await verifier.verify(requireBearer(c.req.header("authorization")));
    c.set("principal", p);
    checkOrgAccess(p, c.req.param("orgId") ?? "", role);
    await next();
  };
}
