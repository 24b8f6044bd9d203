/**
 * The web page for people: a DID resolver anyone can try and, for an org's owner or admin, the
 * org console. Served by the service from `page/` with a strict CSP:
 *
 * ```ts
 * app.route("/", webRoutes());
 * ```
 *
 * @module
 */
export { PAGE_CSP, webRoutes } from "./routes.ts";
