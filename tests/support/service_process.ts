/**
 * The real service (`src/main.ts`) as a subprocess, for tests that kill or restart it on the same
 * KV file: an environment built from a test IdP, a start that waits for `/health`, captured
 * output, SIGKILL and SIGTERM.
 *
 * Ports: the service listens on port 0 (the system picks a free one as it binds) and the test
 * reads which one from the process's own socket table (`/proc/<pid>/fd`, `/proc/<pid>/net/tcp`):
 * no port is probed and let go before the child binds it, so tests running in parallel cannot take
 * each other's ports. A restart listens again on the port of the first start. (Linux; elsewhere a
 * probed port.)
 */
import { TEST_AUDIENCE, TEST_ISSUER, type TestIdp } from "./context.ts";
import { waitFor } from "./wait.ts";

const ROOT = new URL("../../", import.meta.url);

/**
 * A 127.0.0.1 port that was free a moment ago (listened on, then closed): only for a server that
 * cannot listen on port 0 and report its port. Another process may take it meanwhile.
 */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** PUBLIC_URL of a service started here: a fixed name (the port is known only once it listens). */
export const SERVICE_PUBLIC_URL = "http://ssi-edge.test";

/**
 * The service's environment: PORT 0 on 127.0.0.1 (see the module doc), PUBLIC_URL
 * {@link SERVICE_PUBLIC_URL}, KV_PATH `<dir>/kv.sqlite3`, a random SECRETS_KEY, the IdP's public
 * key as AUTH_PUBLIC_KEY with the test issuer and audience, plain-HTTP and private-address
 * outbound calls allowed, a 2 s outbox lease and LOG_LEVEL error. `overrides` replace entries; an
 * `undefined` override leaves the variable out.
 */
export function serviceEnv(
  idp: TestIdp,
  dir: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const all: Record<string, string | undefined> = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? dir,
    DENO_DIR: Deno.env.get("DENO_DIR"),
    // Elsewhere than Linux there is no /proc to read the port from: a probed one.
    PORT: Deno.build.os === "linux" ? "0" : String(freePort()),
    LISTEN_HOST: "127.0.0.1",
    KV_PATH: `${dir}/kv.sqlite3`,
    SECRETS_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
    AUTH_PUBLIC_KEY: JSON.stringify(idp.publicJwk),
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    PUBLIC_URL: SERVICE_PUBLIC_URL,
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
 * The TCP port process `pid` listens on, read from its socket table (Linux: the inodes of its
 * socket descriptors, looked up among the listening sockets of its network namespace); undefined
 * while it listens on none.
 */
export async function listeningPort(pid: number): Promise<number | undefined> {
  const inodes = new Set<string>();
  for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
    const link = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "");
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m) inodes.add(m[1]!);
  }
  for (const table of ["tcp", "tcp6"]) {
    const text = await Deno.readTextFile(`/proc/${pid}/net/${table}`).catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const cols = line.trim().split(/\s+/);
      if (cols[3] === "0A" && inodes.has(cols[9] ?? "")) {
        return parseInt(cols[1]!.split(":").at(-1)!, 16);
      }
    }
  }
  return undefined;
}

/**
 * Runs `deno run --allow-all src/main.ts` with `env` (from `serviceEnv`) over the inherited
 * environment and resolves once `GET /health` answers 2xx; if it does not within `timeoutMs`,
 * kills it and throws with its output. With `PORT` 0 the port the service took is read from its
 * socket table and written into `env.PORT`, so a restart with the same `env` listens there again.
 * `deno`: another Deno than the tests' own.
 */
export async function startService(
  env: Record<string, string>,
  timeoutMs = 60_000,
  deno = Deno.execPath(),
): Promise<ServiceProcess> {
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
  let port = Number(env.PORT);
  if (port === 0) {
    const found = await waitFor(
      "the service to listen",
      () => listeningPort(child.pid),
      timeoutMs,
    ).catch(async (err) => {
      await end("SIGKILL");
      throw new Error(`${err.message}: ${out.join("")}`);
    });
    port = found;
    env.PORT = String(found);
  }
  const base = `http://127.0.0.1:${port}`;
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
