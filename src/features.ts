import type { Feature } from "./app.ts";
import type { AppDeps } from "./deps.ts";

/** Every feature router, in mount order. */
export const features: Feature[] = [];

/** Registers every outbox handler and trusted token issuer of the features. */
export async function setupFeatures(_deps: AppDeps): Promise<void> {
  await Promise.resolve();
}
