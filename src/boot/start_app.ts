/**
 * The second stage of `src/main.ts`: everything the early lane does not need, loaded with a
 * dynamic `import()` once the server listens. It finishes the dev bootstrap, opens KV when the
 * first stage has not, builds the services (`compose.ts`) and the app, starts the dispatcher and,
 * during a SECRETS_KEY rotation, re-seals secrets in the background.
 *
 * @module
 */
import { createApp } from "../app.ts";
import { buildServices, resealables, type Services } from "../compose.ts";
import { rotateSecrets } from "../crypto/mod.ts";
import { type Config, decodeSecretsKey } from "../config/mod.ts";
import { devBanner, devPublicJwk, loadDevSecrets, mintDevToken } from "../dev/mod.ts";
import { log } from "../base/mod.ts";
import { readinessCheck } from "./readiness.ts";

/** The org the dev token is for. */
const DEV_ORG = "demo-org";

/** The loaded service. */
export interface StartedApp {
  services: Services;
  kv: Deno.Kv;
  fetch: (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;
}

/** What the entry lends the app. */
export interface StartOptions {
  /** KV opened by the first stage, if it could (not in dev mode, which makes `.data/` first). */
  kv?: Deno.Kv;
  /** Whether the process is shutting down (readiness answers 503). */
  draining: () => boolean;
  /** The port the server listens on, for the dev-mode banner. */
  port: () => number;
}

/** Opens KV for `config` (making `.data/` first in dev mode). */
export async function openKv(config: Config): Promise<Deno.Kv> {
  if (
    config.devMode && config.kvPath && config.kvPath !== ":memory:" &&
    !/^https?:/i.test(config.kvPath)
  ) {
    await Deno.mkdir(config.kvPath.replace(/\/[^/]*$/, "") || ".", { recursive: true });
  }
  return await Deno.openKv(config.kvPath);
}

/** Builds and starts the whole service. */
export async function startApp(config: Config, options: StartOptions): Promise<StartedApp> {
  let devToken: string | undefined;
  if (config.devMode) {
    const dev = await loadDevSecrets();
    config.secretsKey ??= decodeSecretsKey(dev.secretsKey);
    if (!config.auth.jwksUrl && !config.auth.publicKey) {
      config.auth.publicKey = devPublicJwk(dev);
      devToken = await mintDevToken(dev, { org: DEV_ORG, roles: ["owner"] });
    }
  }
  const kv = options.kv ?? await openKv(config);
  const services = await buildServices(config, kv);
  const app = createApp(services, {
    ready: readinessCheck(services, { draining: options.draining, dispatcherExpected: true }),
  });
  if (config.previousSecretsKeys.length > 0) {
    // A SECRETS_KEY rotation is under way: seal everything under the new key, in the background.
    rotateSecrets(kv, services.secrets, resealables).catch((err) =>
      log("error", "re-sealing under the new SECRETS_KEY failed", { error: err })
    );
  }
  services.dispatcher.start();
  if (devToken) {
    const existing = await services.agents.find(DEV_ORG);
    console.log(devBanner({
      port: options.port(),
      publicUrl: config.publicUrl,
      configuredPort: config.port,
      kvPath: config.kvPath,
      org: DEV_ORG,
      token: devToken,
      apiKey: `dev-${crypto.randomUUID()}`,
      existingEndpoint: existing?.agentEndpoint,
    }));
  }
  return { services, kv, fetch: app.fetch };
}
