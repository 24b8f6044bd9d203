/**
 * Shared HTTP plumbing: authentication (jose), the org access rule, the error envelope, OpenAPI
 * helpers, the zod router, request ids and logs, fast lanes, the docs page and the core routes.
 *
 * @module
 */
export { authenticate, bearerToken, peekPrincipal, requireBearer } from "./bearer.ts";
export {
  ADMIN_ROLES,
  createTokenVerifier,
  hasOrgRole,
  type IdentityProvider,
  MEMBER_ROLES,
  type Principal,
  rolesFromClaims,
  staticKeyGetter,
  type TokenVerifier,
  type TrustedIssuer,
  userTokenVerifier,
} from "./auth.ts";
export {
  assertOrgId,
  bearerAuth,
  type BearerAuthOptions,
  checkOrgAccess,
  isOrgMember,
  ORG_ID_RE,
  OrgId,
  OrgParams,
  type OrgRole,
  requireOrg,
  visibleToMember,
} from "./org.ts";
export { appErrorResponse, errorBody, errorResponse, onError, reason } from "./errors.ts";
export {
  errorResponses,
  ErrorSchema,
  jsonContent,
  RecordIdParam,
  serveOpenApi,
  uuidSchema,
} from "./openapi.ts";
export { noRoute, wrongMethod } from "./no_route.ts";
export { requestMiddleware } from "./request_middleware.ts";
export { createRouter, zodDetails, zodMessage } from "./router.ts";
export { pageOf, PageQuery, parseLimit, stateListQuery } from "./pagination.ts";
export type { JsonResponse, OperationDoc } from "./route_doc.ts";
export { type ListOptions, type OrgRecordRoutes, orgRecordRoutes } from "./org_record_routes.ts";
export {
  type MemberRecordLookup,
  type MemberRecordRoutes,
  memberRecordRoutes,
} from "./member_record_routes.ts";
export { clientAddress } from "./client_address.ts";
export { assignRequestId, finishRequest } from "./request_id.ts";
export { logRequest, requestIdFrom, requestLevel } from "./lite.ts";
export type { AppEnv } from "./env.ts";
export { docsRoutes } from "./docs.ts";
export { corsFor } from "./cors.ts";
export { coreRoutes, type CoreRoutesDeps } from "./core_routes.ts";
