/**
 * The light entry of `http/`: what code loaded before the app (the DID early lane) may take from
 * this folder without loading the router, jose or zod (`mod.ts`): request ids and log lines.
 *
 * @module
 */
export { logRequest, requestIdFrom, requestLogged } from "./request_log.ts";
