/**
 * A real `denokv` server (the self-hosted Deno KV backend, KV Connect over HTTP) for the tests:
 * the binary built once by `denokv.sh` (`cargo install denokv --locked`, pinned, into a cache
 * folder outside the repository), started on a loopback port with an access token and a SQLite
 * file, ready once it answers KV Connect's metadata exchange, stopped, and started again on the
 * same port and file (a restart, as an operator's would be).
 */
import { freePort } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import type { KvBackend } from "../support/scale_out.ts";

const HERE = new URL("./", import.meta.url);

/** The path of the denokv binary; builds it first when the cache has none (minutes, once). */
export async function denokvBinary(): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: [new URL("denokv.sh", HERE).pathname],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("tests/kv_connect/denokv.sh could not provide denokv");
  return new TextDecoder().decode(out.stdout).trim();
}

/** A running (or stopped, to be started again) denokv server. */
export interface DenoKvServer {
  /** The KV Connect URL (`KV_PATH`): `http://127.0.0.1:<port>`. */
  url: string;
  /** Its access token (`DENO_KV_ACCESS_TOKEN`). */
  token: string;
  /** Its SQLite file. */
  sqlitePath: string;
  /** What the services and the test need to reach it. */
  backend: KvBackend;
  /** Everything the server wrote to stdout and stderr, all runs. */
  output(): string;
  /** Stops it (SIGTERM; SIGKILL with `kill`); resolves once it is gone. */
  stop(signal?: Deno.Signal): Promise<void>;
  /** Starts it again on the same port and file; resolves once it serves. */
  start(): Promise<void>;
}

/** Whether the server at `url` answers KV Connect's metadata exchange with `token`. */
async function serves(url: string, token: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ supportedVersions: [2, 3] }),
      signal: AbortSignal.timeout(2_000),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false; // not listening (yet, or any more)
  }
}

/**
 * Starts denokv on a free 127.0.0.1 port with a fresh random access token and `<dir>/denokv.sqlite3`,
 * and resolves once it serves. The test process's own handle (`backend.open()`) reads the token
 * from `DENO_KV_ACCESS_TOKEN`, which this sets in the test process's environment.
 */
export async function startDenoKv(binary: string, dir: string): Promise<DenoKvServer> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const token = crypto.randomUUID().replaceAll("-", "");
  const sqlitePath = `${dir}/denokv.sqlite3`;
  const out: string[] = [];
  let child: Deno.ChildProcess | undefined;
  let drained: Promise<unknown> = Promise.resolve();

  const start = async () => {
    child = new Deno.Command(binary, {
      args: ["--sqlite-path", sqlitePath, "serve", "--addr", `127.0.0.1:${port}`],
      env: { DENO_KV_ACCESS_TOKEN: token, RUST_LOG: "warn" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const drain = async (s: ReadableStream<Uint8Array>) => {
      for await (const chunk of s.pipeThrough(new TextDecoderStream())) out.push(chunk);
    };
    drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
    const running = child;
    let exited = false;
    running.status.then(() => (exited = true));
    await waitFor("denokv to serve", async () => {
      if (exited) throw new Error(`denokv exited: ${out.join("")}`);
      return await serves(url, token);
    }, 30_000);
  };
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    if (!child) return;
    try {
      child.kill(signal);
    } catch { /* exited already */ }
    await child.status;
    await drained;
    child = undefined;
  };

  Deno.env.set("DENO_KV_ACCESS_TOKEN", token);
  await start();
  return {
    url,
    token,
    sqlitePath,
    backend: {
      env: { KV_PATH: url, DENO_KV_ACCESS_TOKEN: token },
      open: () => Deno.openKv(url),
    },
    output: () => out.join(""),
    stop,
    start,
  };
}
