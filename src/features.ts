import type { Feature } from "./app.ts";
import type { AppDeps } from "./deps.ts";
import { agentsFeature } from "./agents/routes.ts";
import { setupAgents } from "./agents/setup.ts";

/** Every feature router, in mount order. */
export const features: Feature[] = [
  agentsFeature,
];

/** Registers every outbox handler and trusted token issuer of the features. */
export async function setupFeatures(deps: AppDeps): Promise<void> {
  await setupAgents(deps);
}
