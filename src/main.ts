/**
 * The production entry (never imported: evaluating it starts the service). It checks the Deno
 * version, registers the outbox cron at the top level (where Deno Deploy finds crons), reads the
 * environment (through `parseConfig` only), opens KV, builds the services (`compose.ts`) and the
 * app, and serves. SIGTERM/SIGINT
 * drain it within 5 s (CONTRACT "Operations"): readiness answers 503, the dispatcher stops
 * claiming, in-flight requests and delivery attempts finish or give their leases back, then exit.
 */
import { createApp } from "./app.ts";
import { buildServices, rotateSecrets, type Services } from "./compose.ts";
import { type Config, ConfigError, decodeSecretsKey, parseConfig } from "./config.ts";
import { devPublicJwk, loadDevSecrets, mintDevToken } from "./dev_keys.ts";
import { log, setLogLevel } from "./log.ts";
import { runtimeProblem } from "./runtime.ts";

/** How long readiness answers 503 with the listener still open, before it closes. */
const READINESS_GRACE_MS = 1_000;
/** How long in-flight delivery attempts may go on after the signal before they are cut short. */
const DELIVERY_GRACE_MS = 3_000;
/** How long in-flight HTTP requests may go on after the listener closes. */
const REQUEST_GRACE_MS = 2_000;

/** A started service. */
interface Running {
  services: Services;
  server: Deno.HttpServer;
}

let running: Promise<Running> | undefined;
let draining = false;

/** Starts the service once; the cron and the entry share it. */
function start(): Promise<Running> {
  running ??= run();
  return running;
}

async function run(): Promise<Running> {
  let config: Config;
  try {
    config = parseConfig(Deno.env.toObject());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      Deno.exit(1);
    }
    throw err;
  }
  setLogLevel(config.logLevel);
  log("info", "starting", { deno: Deno.version.deno, v8: Deno.version.v8 });
  let devToken: string | undefined;
  if (config.devMode) {
    const dev = await loadDevSecrets();
    config.secretsKey ??= decodeSecretsKey(dev.secretsKey);
    if (!config.auth.jwksUrl && !config.auth.publicKey) {
      config.auth.publicKey = devPublicJwk(dev);
      devToken = await mintDevToken(dev, { org: "demo-org", roles: ["owner"] });
    }
    if (config.kvPath && config.kvPath !== ":memory:" && !/^https?:/i.test(config.kvPath)) {
      await Deno.mkdir(config.kvPath.replace(/\/[^/]*$/, "") || ".", { recursive: true });
    }
  }
  const kv = await Deno.openKv(config.kvPath);
  const services = await buildServices(config, kv);
  const app = createApp(services, {
    processState: { draining: () => draining, dispatcherExpected: true },
  });
  if (config.previousSecretsKeys.length > 0) {
    // A SECRETS_KEY rotation is under way: seal everything under the new key, in the background.
    rotateSecrets(kv, services.secrets).catch((err) =>
      log("error", "re-sealing under the new SECRETS_KEY failed", { error: err })
    );
  }
  services.dispatcher.start();
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
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => void shutdown(signal, { services, server }, kv));
  }
  return { services, server };
}

/** Drains and exits (see the module doc); a second signal changes nothing. */
async function shutdown(signal: string, { services, server }: Running, kv: Deno.Kv) {
  if (draining) return;
  draining = true;
  const t0 = performance.now();
  log("info", "shutting down", { signal });
  const deliveries = services.dispatcher.stop({ graceMs: DELIVERY_GRACE_MS });
  await sleep(READINESS_GRACE_MS);
  await Promise.race([server.shutdown(), sleep(REQUEST_GRACE_MS)]);
  await deliveries;
  kv.close();
  log("info", "stopped", { ms: Math.round(performance.now() - t0) });
  Deno.exit(0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// Evaluating the module: refuse an old Deno, then register the cron at the top level, before
// any server starts (where Deno Deploy finds crons; a cron defined in a conditional or a callback
// is not picked up). Its handler waits for the service to be up; messages are due on the outbox
// records, so a missed minute loses nothing.
const problem = runtimeProblem(Deno.version.deno);
if (problem) {
  console.error(problem);
  Deno.exit(1);
}
Deno.cron("outbox-dispatch", "* * * * *", async () => {
  if (draining) return;
  await (await start()).services.dispatcher.runOnce();
});
await start();
