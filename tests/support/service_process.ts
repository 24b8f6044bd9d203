/**
 * The real service (`src/main.ts`) as a subprocess, for tests that kill or restart it on the same
 * KV file: an environment built from a test IdP, a start that waits for `/health`, captured
 * output, SIGKILL and SIGTERM.
 */
import { TEST_AUDIENCE, TEST_ISSUER, type TestIdp } from "./context.ts";
import { waitFor } from "./wait.ts";

const ROOT = new URL("../../", import.meta.url);

/** A 127.0.0.1 port that was free a moment ago (listened on, then closed). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * The service's environment: a free PORT on 127.0.0.1 (PUBLIC_URL to match), KV_PATH
 * `<dir>/kv.sqlite3`, a random SECRETS_KEY, the IdP's public key as AUTH_PUBLIC_KEY with the test
 * issuer and audience, plain-HTTP and private-address outbound calls allowed, a 2 s outbox lease and
 * LOG_LEVEL error. `overrides` replace entries; an `undefined` override leaves the variable out.
 */
export function serviceEnv(
  idp: TestIdp,
  dir: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const port = freePort();
  const all: Record<string, string | undefined> = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? dir,
    DENO_DIR: Deno.env.get("DENO_DIR"),
    PORT: String(port),
    LISTEN_HOST: "127.0.0.1",
    KV_PATH: `${dir}/kv.sqlite3`,
    SECRETS_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
    AUTH_PUBLIC_KEY: JSON.stringify(idp.publicJwk),
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    OUTBOUND_REQUIRE_HTTPS: "false",
    OUTBOUND_ALLOW_PRIVATE: "true",
    OUTBOX_LEASE_SECONDS: "2",
    LOG_LEVEL: "error",
    ...overrides,
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) if (v) env[k] = v;
  return env;
}

/** A running service subprocess. */
export interface ServiceProcess {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  child: Deno.ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** SIGKILL; resolves with the exit status once the process is gone and its output drained. */
  kill(): Promise<Deno.CommandStatus>;
  /** SIGTERM (graceful shutdown); resolves like `kill`. */
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Runs `deno run --allow-all src/main.ts` with `env` (from `serviceEnv`) over the inherited
 * environment and resolves once `GET /health` answers 2xx; if it does not within `timeoutMs`,
 * kills it and throws with its output. `deno`: another Deno than the tests' own.
 */
export async function startService(
  env: Record<string, string>,
  timeoutMs = 60_000,
  deno = Deno.execPath(),
): Promise<ServiceProcess> {
  const port = Number(env.PORT);
  const base = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(deno, {
    args: ["run", "--allow-all", "src/main.ts"],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out: string[] = [];
  const drain = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) out.push(chunk);
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const end = async (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch { /* already exited */ }
    const status = await child.status;
    await drained;
    return status;
  };
  await waitFor("service health", async () => {
    try {
      const r = await fetch(`${base}/health`);
      await r.body?.cancel();
      return r.ok;
    } catch {
      return false; // not listening yet
    }
  }, timeoutMs).catch(async (err) => {
    await end("SIGKILL");
    throw new Error(`${err.message}: ${out.join("")}`);
  });
  return {
    base,
    port,
    child,
    output: () => out.join(""),
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
  };
}
