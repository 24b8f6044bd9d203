/**
 * The production entry (never imported: evaluating it starts the service). It checks the Deno
 * version, registers the outbox and status recheck crons at the top level (where Deno Deploy
 * finds crons), reads the
 * environment (through `parseConfig` only), opens KV, and serves at once; the rest of the service
 * (`boot/start_app.ts`: services, app, dispatcher) is loaded with a dynamic `import()` after the server
 * listens, so a fresh instance answers its first request early. Until the app is loaded, the early
 * lane (`did/lite.ts`) answers plain public Ed25519 did:key resolutions exactly as the app would,
 * and every other request waits for the app. SIGTERM/SIGINT drain it within 5 s (CONTRACT
 * "Operations"): readiness answers 503, the dispatcher stops claiming, in-flight requests and
 * delivery attempts finish or give their leases back, then exit.
 */
import { type Config, ConfigError, parseConfig } from "./config/mod.ts";
import { createEarlyLane } from "./did/lite.ts";
import { log, setLogLevel } from "./base/mod.ts";
import { runtimeProblem } from "./boot/lite.ts";
import type { StartedApp } from "./boot/mod.ts";

/** How long readiness answers 503 with the listener still open, before it closes. */
const READINESS_GRACE_MS = 1_000;
/** How long in-flight delivery attempts may go on after the signal before they are cut short. */
const DELIVERY_GRACE_MS = 3_000;
/** How long in-flight HTTP requests may go on after the listener closes. */
const REQUEST_GRACE_MS = 2_000;
/**
 * The app starts loading once the first early answer is out, or this long after listening: the
 * request that woke a fresh instance is answered before module loading takes the thread.
 */
const APP_LOAD_DELAY_MS = 50;

/** A started service. */
interface Running {
  app: StartedApp;
  server: Deno.HttpServer;
}

let running: Promise<Running> | undefined;
let draining = false;

/** Starts the service once; the cron and the entry share it. */
function start(): Promise<Running> {
  running ??= run();
  return running;
}

function fail(err: unknown): never {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    Deno.exit(1);
  }
  log("error", "the service could not start", { error: err });
  Deno.exit(1);
}

async function run(): Promise<Running> {
  let config: Config;
  try {
    config = parseConfig(Deno.env.toObject());
  } catch (err) {
    fail(err);
  }
  setLogLevel(config.logLevel);
  log("info", "starting", { deno: Deno.version.deno, v8: Deno.version.v8 });
  // Dev mode makes `.data/` (and its secrets) before opening KV: the app's stage does both.
  const kv = config.devMode ? undefined : await Deno.openKv(config.kvPath);

  let loaded: StartedApp | undefined;
  let loading: Promise<StartedApp> | undefined;
  let port = config.port;
  const ready = Promise.withResolvers<StartedApp>();
  const load = (): Promise<StartedApp> => {
    loading ??= import("./boot/mod.ts")
      .then(({ startApp }) => startApp(config, { kv, draining: () => draining, port: () => port }))
      .then((app) => (loaded = app), fail);
    ready.resolve(loading);
    return loading;
  };
  const loadSoon = () => setTimeout(() => void load(), 0);
  const early = createEarlyLane({ isPublic: config.didResolutionPublic });

  const server = Deno.serve({
    port: config.port,
    hostname: config.listenHost,
    onListen: (addr) => {
      port = addr.port;
      log("info", "listening", {
        url: `http://${addr.hostname}:${addr.port}`,
        devMode: config.devMode,
        kv: config.kvPath ?? "platform",
      });
      setTimeout(() => void load(), APP_LOAD_DELAY_MS);
    },
  }, (req, info) => {
    if (loaded) return loaded.fetch(req, info);
    const res = early(req);
    if (res !== undefined) {
      loadSoon();
      return res;
    }
    return load().then((app) => app.fetch(req, info));
  });
  const app = await ready.promise;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => void shutdown(signal, { app, server }));
  }
  return { app, server };
}

/** Drains and exits (see the module doc); a second signal changes nothing. */
async function shutdown(signal: string, { app, server }: Running) {
  if (draining) return;
  draining = true;
  const t0 = performance.now();
  log("info", "shutting down", { signal });
  const deliveries = app.services.dispatcher.stop({ graceMs: DELIVERY_GRACE_MS });
  await sleep(READINESS_GRACE_MS);
  await Promise.race([server.shutdown(), sleep(REQUEST_GRACE_MS)]);
  await deliveries;
  app.kv.close();
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
  await (await start()).app.services.dispatcher.runOnce();
});
// Stored credentials' status, every CREDENTIAL_STATUS_RECHECK_SECONDS: each minute one process
// takes the tick (a KV record) and rechecks the statuses that are due (status/service.ts).
Deno.cron("credential-status-recheck", "* * * * *", async () => {
  if (draining) return;
  await (await start()).app.services.status.cronTick();
});
await start();
