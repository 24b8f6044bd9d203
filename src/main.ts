/**
 * The production entry: reads the environment (through `parseConfig` only), opens KV, builds the
 * services (`compose.ts`) and the app, and starts the server, the dispatcher loop and the cron.
 */
import { createApp } from "./app.ts";
import { buildServices, rotateSecrets } from "./compose.ts";
import { type Config, ConfigError, decodeSecretsKey, parseConfig } from "./config.ts";
import { devPublicJwk, loadDevSecrets, mintDevToken } from "./dev_keys.ts";
import { log, setLogLevel } from "./log.ts";

async function main(): Promise<void> {
  const env = Deno.env.toObject();
  let config: Config;
  try {
    config = parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      Deno.exit(1);
    }
    throw err;
  }
  setLogLevel(config.logLevel);
  let devToken: string | undefined;
  if (config.devMode) {
    const dev = await loadDevSecrets();
    config.secretsKey ??= decodeSecretsKey(dev.secretsKey);
    if (!config.auth.jwksUrl && !config.auth.publicKey) {
      config.auth.publicKey = devPublicJwk(dev);
      devToken = await mintDevToken(dev, { org: "demo-org", roles: ["owner"] });
    }
    if (config.kvPath && config.kvPath !== ":memory:") {
      await Deno.mkdir(config.kvPath.replace(/\/[^/]*$/, "") || ".", { recursive: true });
    }
  }
  const kv = await Deno.openKv(config.kvPath);
  const services = await buildServices(config, kv);
  const app = createApp(services);
  if (config.previousSecretsKeys.length > 0) {
    // A SECRETS_KEY rotation is under way: seal everything under the new key, in the background.
    rotateSecrets(kv, services.secrets).catch((err) =>
      log("error", "re-sealing under the new SECRETS_KEY failed", { error: err })
    );
  }
  services.dispatcher.start();
  try {
    Deno.cron("outbox-dispatch", "* * * * *", async () => {
      await services.dispatcher.runOnce();
    });
  } catch (err) {
    log("warn", "Deno.cron is not available; the in-process dispatcher loop runs alone", {
      error: err,
    });
  }

  const server = Deno.serve({
    port: config.port,
    hostname: config.listenHost,
    onListen: ({ hostname, port }) => {
      log("info", "listening", {
        url: `http://${hostname}:${port}`,
        devMode: config.devMode,
        kv: config.kvPath ?? "platform",
      });
      if (devToken) {
        console.log(
          `\nDev mode. Demo org "demo-org", role owner. Try:\n  curl -H "Authorization: Bearer ${devToken}" http://localhost:${port}/me\n` +
            `More tokens: deno task token --org ID --role ROLE\n`,
        );
      }
    },
  }, app.fetch);

  const shutdown = async () => {
    log("info", "shutting down");
    await server.shutdown();
    await services.dispatcher.stop();
    kv.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", shutdown);
  Deno.addSignalListener("SIGTERM", shutdown);
}

if (import.meta.main) await main();
