/**
 * Startup of the agents feature: loads (or creates once) the service signing key and registers
 * the agent token issuer with the token verifier, so agent tokens minted before a restart are
 * accepted after it.
 *
 * @module
 */
import type { AppDeps } from "../deps.ts";
import { serviceSigner } from "./service_key.ts";

/** Called once from `setupFeatures`. Throws when the stored signing key cannot be opened. */
export async function setupAgents(deps: AppDeps): Promise<void> {
  await serviceSigner(deps);
}
