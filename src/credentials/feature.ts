/**
 * The credentials feature: holder side of Issue Credential 2.0 with JSON-LD credentials.
 * `credentialsFeature` is the router; `setupCredentials` builds the holder for the app's deps and
 * registers its inbound message handlers with the DIDComm layer.
 *
 * @module
 */
import type { AppDeps } from "../deps.ts";
import { realDidcommPort, serviceResolveDid } from "./didcomm_adapter.ts";
import { CredentialHolder, type HolderOptions } from "./holder.ts";
import { AUTO_ACCEPT_KIND, inboundHandlers } from "./inbound.ts";
import { autoAcceptHandler } from "./auto_accept.ts";
import { credentialRoutes } from "./routes.ts";

const holders = new WeakMap<AppDeps, CredentialHolder>();

/** The holder of `deps` (set up by {@link setupCredentials}). */
export function holderFor(deps: AppDeps): CredentialHolder {
  let h = holders.get(deps);
  if (!h) {
    h = new CredentialHolder(deps, {
      port: realDidcommPort(deps),
      resolveDid: serviceResolveDid(deps),
    });
    holders.set(deps, h);
  }
  return h;
}

/** The credentials feature router. */
export function credentialsFeature(deps: AppDeps) {
  return credentialRoutes(deps, () => holderFor(deps));
}

/**
 * Builds the holder of `deps` (default: the real DIDComm layer and the service's DID resolver;
 * tests may pass a port or resolver), registers its handlers for
 * offer-credential, issue-credential and problem-report, and the outbox handler of auto-accept
 * steps. Returns the holder.
 */
export function setupCredentials(
  deps: AppDeps,
  opts: Partial<HolderOptions> = {},
): Promise<CredentialHolder> {
  const holder = new CredentialHolder(deps, {
    port: opts.port ?? realDidcommPort(deps),
    resolveDid: opts.resolveDid ?? serviceResolveDid(deps),
  });
  holders.set(deps, holder);
  deps.dispatcher.register(AUTO_ACCEPT_KIND, autoAcceptHandler(holder));
  for (const [type, handler] of Object.entries(inboundHandlers(holder))) {
    holder.port.registerHandler(type, handler);
  }
  return Promise.resolve(holder);
}
