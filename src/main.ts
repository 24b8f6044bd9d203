/**
 * Composition root: the only place that reads the environment, opens KV, and starts the server,
 * the dispatcher loop and the cron.
 */
import { createApp, type Feature } from "./app.ts";
import { type Config, ConfigError, decodeSecretsKey, parseConfig } from "./config.ts";
import { resealAll } from "./crypto/rotation.ts";
import { SecretBox } from "./crypto/secret_box.ts";
import type { AppDeps } from "./deps.ts";
import { devPublicJwk, loadDevSecrets, mintDevToken } from "./dev_keys.ts";
import { createTokenVerifier, staticKeyGetter } from "./http/auth.ts";
import { log, setLogLevel } from "./log.ts";
import { Dispatcher } from "./outbox/dispatcher.ts";
import { createSafeFetch } from "./outbound/mod.ts";
import { features, resealables, setupFeatures } from "./features.ts";
import * as jose from "jose";

/** Builds every dependency from a parsed config. Used by main and by subprocess tests. */
export function buildDeps(config: Config, kv: Deno.Kv): AppDeps {
  if (!config.secretsKey) throw new ConfigError("SECRETS_KEY is required.");
  const key = config.auth.jwksUrl
    ? jose.createRemoteJWKSet(new URL(config.auth.jwksUrl), {
      timeoutDuration: 5000,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
    })
    : staticKeyGetter(config.auth.publicKey!);
  const verifier = createTokenVerifier({
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    algorithms: config.auth.algorithms,
    key,
    kind: "user",
  });
  const leaseSeconds = Number(Deno.env.get("OUTBOX_LEASE_SECONDS") ?? "30");
  const dispatcher = new Dispatcher(kv, { leaseMs: leaseSeconds * 1000 });
  return {
    config,
    kv,
    verifier,
    dispatcher,
    safeFetch: createSafeFetch(config.outbound),
    secrets: new SecretBox(config.secretsKey, config.previousSecretsKeys),
    now: Date.now,
  };
}

/**
 * Seals every sealed value in KV again under the current SECRETS_KEY and logs what it did.
 * True when every value opened (then SECRETS_KEY_PREVIOUS can be removed).
 */
export async function rotateSecrets(kv: Deno.Kv, box: SecretBox): Promise<boolean> {
  const reports = await resealAll(kv, box, resealables);
  for (const r of reports) {
    log(r.failed.length ? "error" : "info", "re-sealed under the current SECRETS_KEY", {
      values: r.name,
      checked: r.checked,
      resealed: r.resealed,
      unreadable: r.failed.length,
      ...(r.failed.length ? { unreadableKeys: r.failed.slice(0, 20) } : {}),
    });
  }
  const ok = reports.every((r) => r.failed.length === 0);
  log(
    ok ? "info" : "error",
    ok
      ? "every sealed value is under the current SECRETS_KEY; SECRETS_KEY_PREVIOUS can be removed"
      : "some sealed values open with no configured key; keep SECRETS_KEY_PREVIOUS and check them",
  );
  return ok;
}

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
  const deps = buildDeps(config, kv);
  const app = createApp(deps, features as Feature[]);
  await setupFeatures(deps);
  if (config.previousSecretsKeys.length > 0) {
    // A SECRETS_KEY rotation is under way: seal everything under the new key, in the background.
    rotateSecrets(kv, deps.secrets).catch((err) =>
      log("error", "re-sealing under the new SECRETS_KEY failed", { error: err })
    );
  }
  deps.dispatcher.start();
  try {
    Deno.cron("outbox-dispatch", "* * * * *", async () => {
      await deps.dispatcher.runOnce();
    });
  } catch (err) {
    log("warn", "Deno.cron is not available; the in-process dispatcher loop runs alone", {
      error: err,
    });
  }

  const server = Deno.serve({
    port: config.port,
    hostname: env.HOSTNAME ?? (config.devMode ? "127.0.0.1" : "0.0.0.0"),
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
    await deps.dispatcher.stop();
    kv.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", shutdown);
  Deno.addSignalListener("SIGTERM", shutdown);
}

if (import.meta.main) await main();
