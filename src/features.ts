import type { Feature } from "./app.ts";
import type { AppDeps } from "./deps.ts";
import { didRoutes } from "./did/routes.ts";
import { agentsFeature } from "./agents/routes.ts";
import { setupAgents } from "./agents/setup.ts";
import { didcommFeature, setupDidcomm } from "./didcomm/feature.ts";
import { setupWebhooks, webhooksFeature } from "./webhooks/feature.ts";
import { credentialsFeature, setupCredentials } from "./credentials/feature.ts";
import type { Resealable } from "./crypto/rotation.ts";
import { pepperResealable } from "./agents/api_key.ts";
import { signingKeyResealable } from "./agents/service_key.ts";
import { walletKeyResealable } from "./agents/wallet.ts";
import { webhookSecretsResealable } from "./webhooks/endpoint.ts";

/** Every feature router, in mount order. */
export const features: Feature[] = [
  didRoutes,
  agentsFeature,
  didcommFeature,
  webhooksFeature,
  credentialsFeature,
];

/** Registers every outbox handler and trusted token issuer of the features. */
export async function setupFeatures(deps: AppDeps): Promise<void> {
  await setupAgents(deps);
  await setupDidcomm(deps);
  await setupWebhooks(deps);
  await setupCredentials(deps);
}

/** Every kind of value sealed with SECRETS_KEY, for a key rotation (`src/crypto/rotation.ts`). */
// deno-lint-ignore no-explicit-any
export const resealables: Resealable<any>[] = [
  signingKeyResealable,
  pepperResealable,
  walletKeyResealable,
  webhookSecretsResealable,
];
