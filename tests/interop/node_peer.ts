/**
 * What the Node.js interop peers' launchers share (`credo_peer.ts`, `oid4vc_peer.ts`,
 * `oid4vp_peer.ts`): spawn the peer's script with Node.js, wait for its `READY {...}` line on
 * stdout, keep the tail of its stderr, call its JSON control API, and stop it (control API, then
 * SIGKILL after 3 s); or run one of its scripts to its end for the JSON result it prints.
 */

/** Options of {@link spawnNodePeer}. */
export interface NodePeerOptions {
  /** Name in error messages ("Credo peer"). */
  name: string;
  /** The peer's folder (its node_modules sit there). */
  dir: URL;
  /** Script and arguments, relative to `dir`. */
  script: string;
  args: string[];
  /** A file under `dir` that exists once the peer's npm packages are installed, and the hint. */
  installed: { probe: string; hint: string };
  /** Control API path that makes the peer exit. */
  stopPath: string;
  /** Milliseconds to wait for READY (default 60000: a bound on a hang, not a speed check). */
  startupTimeoutMs?: number;
  /** Credo log level (default warn). */
  logLevel?: string;
  /** Node.js executable (default $NODE_BIN, else `node` on PATH). */
  nodePath?: string;
}

/** A running peer. */
export interface NodePeer {
  /** The JSON of its READY line. */
  ready: Record<string, unknown>;
  /** Calls the control API at `controlUrl`; throws on a non-2xx answer. */
  api<T>(controlUrl: string, method: string, path: string, body?: unknown): Promise<T>;
  /** Its stderr so far (last 64 KiB). */
  logs(): string;
  close(controlUrl: string): Promise<void>;
}

/** A running peer's control API bound to its address: what a launcher wraps. */
export interface PeerControl {
  /** READY's `controlUrl`, else `http://127.0.0.1:<controlPort>`. */
  controlUrl: string;
  /** Calls the control API; throws on a non-2xx answer. */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Its stderr so far (last 64 KiB). */
  logs(): string;
  /** Stops the peer (control API, then SIGKILL after 3 s) and awaits its exit. */
  close(): Promise<void>;
}

/** {@link PeerControl} of a spawned peer. */
export function peerControl(node: NodePeer): PeerControl {
  const controlUrl = typeof node.ready.controlUrl === "string"
    ? node.ready.controlUrl
    : `http://127.0.0.1:${node.ready.controlPort}`;
  return {
    controlUrl,
    api: (method, path, body) => node.api(controlUrl, method, path, body),
    logs: () => node.logs(),
    close: () => node.close(controlUrl),
  };
}

/** The Node.js executable of a launcher's options. */
export function nodeExecutable(options: { nodePath?: string }): string {
  return options.nodePath ?? Deno.env.get("NODE_BIN") ?? "node";
}

/**
 * Runs `script` (relative to `dir`) with Node.js to its end and returns its result: the last line
 * it printed that is a JSON object. Throws with that line and its stderr when it printed none or
 * exited with an error.
 */
export async function runNodeScript<T>(
  options: { nodePath?: string; logLevel?: string },
  dir: URL,
  script: string,
  args: string[],
): Promise<T> {
  const out = await new Deno.Command(nodeExecutable(options), {
    args: [new URL(script, dir).pathname, ...args],
    cwd: dir.pathname,
    env: { CREDO_LOG: options.logLevel ?? "warn" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  const line = decode(out.stdout).trim().split("\n").findLast((l) => l.startsWith("{"));
  if (!line || !out.success) {
    throw new Error(
      `${script} failed (exit ${out.code})${line ? `: ${line}` : ""}:\n${decode(out.stderr)}`,
    );
  }
  return JSON.parse(line) as T;
}

/** Keeps the tail of a text stream in memory. */
function collectTail(stream: ReadableStream<Uint8Array>, limit = 65536) {
  let text = "";
  const done = (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text = (text + chunk).slice(-limit);
    }
  })();
  return { text: () => text, done };
}

/** Reads lines from stdout until `READY {...}`, then keeps draining in the background. */
async function readReady(stream: ReadableStream<Uint8Array>, timeoutMs: number, name: string) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: no READY line in time`)), timeoutMs);
  });
  try {
    for (;;) {
      const { value, done } = await Promise.race([reader.read(), timeout]);
      if (done) throw new Error(`${name}: exited before READY`);
      buffer += value;
      const line = buffer.split("\n").find((l) => l.startsWith("READY "));
      if (line) {
        const drained = (async () => {
          while (!(await reader.read()).done) { /* discard */ }
        })();
        return { ready: JSON.parse(line.slice(6)) as Record<string, unknown>, drained };
      }
    }
  } catch (error: unknown) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Spawns a peer and waits for READY; always `close()` it (e.g. in `finally`). */
export async function spawnNodePeer(o: NodePeerOptions): Promise<NodePeer> {
  try {
    Deno.statSync(new URL(o.installed.probe, o.dir));
  } catch {
    throw new Error(`${o.name} dependencies missing: ${o.installed.hint}`);
  }
  const child = new Deno.Command(nodeExecutable(o), {
    args: [new URL(o.script, o.dir).pathname, ...o.args],
    cwd: o.dir.pathname,
    env: { CREDO_LOG: o.logLevel ?? "warn" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = collectTail(child.stderr);
  let ready: Record<string, unknown>;
  let drained: Promise<void>;
  try {
    ({ ready, drained } = await readReady(child.stdout, o.startupTimeoutMs ?? 60_000, o.name));
  } catch (error: unknown) {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    await child.status;
    await stderr.done;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- peer stderr ---\n${stderr.text()}`);
  }
  const api = async <T>(base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) {
      throw new Error(`${o.name} ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    }
    return json as T;
  };
  let closed: Promise<void> | undefined;
  return {
    ready,
    api,
    logs: () => stderr.text(),
    close: (base) => {
      closed ??= (async () => {
        await api(base, "POST", o.stopPath).catch(() => {});
        const timer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch { /* already exited */ }
        }, 3000);
        await child.status;
        clearTimeout(timer);
        await Promise.all([drained, stderr.done]);
      })();
      return closed;
    },
  };
}
