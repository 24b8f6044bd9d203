/**
 * The credentials feature: holder side of Issue Credential 2.0 with JSON-LD credentials.
 * `credentialsFeature` is the router; `setupCredentials` builds the holder for the app's deps and
 * registers its inbound message handlers with the DIDComm layer.
 *
 * @module
 */
import type { AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { CredentialDidcommPort } from "./didcomm_port.ts";
import { CredentialHolder, type HolderOptions } from "./holder.ts";
import { AUTO_ACCEPT_KIND, inboundHandlers } from "./inbound.ts";
import { autoAcceptHandler } from "./auto_accept.ts";
import { credentialRoutes } from "./routes.ts";

const holders = new WeakMap<AppDeps, CredentialHolder>();

/** Used until a DIDComm port is set up: every send fails with 503. */
const unavailablePort: CredentialDidcommPort = {
  registerHandler() {},
  queueMessage() {
    throw new AppError(
      "didcomm_unavailable",
      503,
      "DIDComm messaging is not set up in this service; no message can be sent.",
    );
  },
};

/** The holder of `deps` (set up by {@link setupCredentials}). */
export function holderFor(deps: AppDeps): CredentialHolder {
  let h = holders.get(deps);
  if (!h) {
    h = new CredentialHolder(deps, { port: unavailablePort });
    holders.set(deps, h);
  }
  return h;
}

/** The credentials feature router. */
export function credentialsFeature(deps: AppDeps) {
  return credentialRoutes(deps, () => holderFor(deps));
}

/**
 * Builds the holder of `deps` with `opts.port` (the DIDComm layer), registers its handlers for
 * offer-credential, issue-credential and problem-report, and the outbox handler of auto-accept
 * steps. Returns the holder.
 */
export function setupCredentials(
  deps: AppDeps,
  opts: Partial<HolderOptions> = {},
): Promise<CredentialHolder> {
  const holder = new CredentialHolder(deps, { ...opts, port: opts.port ?? unavailablePort });
  holders.set(deps, holder);
  deps.dispatcher.register(AUTO_ACCEPT_KIND, autoAcceptHandler(holder));
  for (const [type, handler] of Object.entries(inboundHandlers(holder))) {
    holder.port.registerHandler(type, handler);
  }
  return Promise.resolve(holder);
}
