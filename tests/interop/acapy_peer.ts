/**
 * Launcher for a real ACA-Py (`aries-cloudagent` 0.12, Python) agent: the second DIDComm peer
 * beside Credo. `bash tests/interop/setup.sh` installs it into `tests/interop/acapy_peer/venv`
 * from the hash-pinned `requirements.txt`.
 *
 * ACA-Py is started on 127.0.0.1 with no ledger, an in-memory askar wallet, every automatic
 * response off (each step is driven through its admin API, insecure mode, loopback only) and
 * exchange records kept after they end, so the tests read ACA-Py's own states. Its webhooks go to a
 * receiver of ours (port 0) that keeps them. ACA-Py cannot listen on port 0 (its endpoint is
 * announced before it binds), so its two ports are reserved by binding port 0 and closing; when
 * another process took one in between, ACA-Py exits with "address in use" and is started again
 * on fresh ports. It runs through `acapy_peer/start.py`, which gives its JSON-LD loader the
 * contexts it would otherwise download (see there).
 */
import { ACAPY_PEER_DIR, acapyProblem } from "./availability.ts";
import { freePort } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";

const PYTHON = new URL("venv/bin/python", ACAPY_PEER_DIR);
/**
 * Contexts ACA-Py would download (it has no network here), given to its offline cache by
 * `acapy_peer/start.py`: the PE submission context that presentations carry (RFC 0510).
 */
const OFFLINE_CONTEXTS: Record<string, URL> = {
  "https://identity.foundation/presentation-exchange/submission/v1": new URL(
    "../../src/credentials/jsonld/contexts/presentation_submission_v1.json",
    import.meta.url,
  ),
};

/** Options of {@link startAcapy}. */
export interface AcapyOptions {
  /** Its label in invitations and handshakes (default "ACA-Py Peer"). */
  label?: string;
  /** ACA-Py's log level (default info). */
  logLevel?: string;
  /** Milliseconds to wait for `/status/ready` (default 60000: a cold start under load). */
  startupTimeoutMs?: number;
  /** More command line arguments. */
  extraArgs?: string[];
  /** Picks a free 127.0.0.1 port (default: bind port 0, read it, close). */
  pickPort?: () => number;
}

/** One webhook ACA-Py posted (`/topic/{topic}/`). */
export interface AcapyEvent {
  topic: string;
  payload: Record<string, unknown>;
}

/** A running ACA-Py agent. */
export interface AcapyPeer {
  label: string;
  /** Its DIDComm endpoint, `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Its admin API base URL. */
  adminUrl: string;
  /** Milliseconds from spawn to `/status/ready` (of the start that succeeded). */
  startupMs: number;
  /** How many starts it took (more than 1 when a reserved port was taken meanwhile). */
  attempts: number;
  /** Calls the admin API; throws with ACA-Py's answer on a non-2xx status. */
  admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  /** Calls the admin API and returns the status and body, whatever the status. */
  adminRaw(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>;
  /** The webhooks received so far, optionally of one topic. */
  events(topic?: string): AcapyEvent[];
  /** Its stdout and stderr so far (last 256 KiB). */
  logs(): string;
  /** SIGTERM, SIGKILL after 5 s; awaits the exit. Idempotent. */
  close(): Promise<void>;
}

/** What ACA-Py logs when one of its ports is taken (it keeps running without that transport). */
const BIND_FAILURE = /address already in use|Errno 98|Unable to start webserver/i;

/** Whether `url` answers within 2 s (a port held by another program may never answer). */
async function answers(url: string, check: (res: Response, body: string) => boolean) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return check(res, await res.text());
  } catch {
    return false;
  }
}

/** Keeps the tail of both output streams in one buffer. */
function collect(streams: ReadableStream<Uint8Array>[], limit = 256 * 1024) {
  let text = "";
  const done = Promise.all(streams.map(async (s) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) {
      text = (text + chunk).slice(-limit);
    }
  }));
  return { text: () => text, done };
}

function startWebhookReceiver() {
  const events: AcapyEvent[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const m = /^\/topic\/([^/]+)\/?$/.exec(new URL(req.url).pathname);
      const body = await req.text();
      if (m && req.method === "POST") {
        try {
          events.push({ topic: m[1]!, payload: JSON.parse(body) });
        } catch { /* not JSON: not an event */ }
      }
      return new Response(null, { status: 204 });
    },
  );
  return { events, server, url: `http://127.0.0.1:${server.addr.port}` };
}

function args(label: string, logLevel: string, port: number, adminPort: number, hook: string) {
  return [
    "start",
    ...["--inbound-transport", "http", "127.0.0.1", String(port)],
    ...["--outbound-transport", "http"],
    ...["--endpoint", `http://127.0.0.1:${port}`],
    ...["--admin", "127.0.0.1", String(adminPort), "--admin-insecure-mode"],
    "--no-ledger",
    ...["--wallet-type", "askar", "--wallet-name", ":memory:", "--wallet-key", "acapy-test"],
    "--auto-provision",
    ...["--label", label],
    ...["--webhook-url", hook],
    // Records stay after `done` / `abandoned`, so the tests read ACA-Py's final states.
    "--preserve-exchange-records",
    // Trust ping responses are reported as `ping` webhooks.
    "--monitor-ping",
    ...["--log-level", logLevel],
  ];
}

/** One start on the given ports: ready, or the reason it is not (with whether to retry). */
async function startOnce(
  o: Required<Pick<AcapyOptions, "label" | "logLevel" | "startupTimeoutMs">> & AcapyOptions,
  hook: string,
) {
  const pick = o.pickPort ?? freePort;
  const port = pick();
  let adminPort = pick();
  while (adminPort === port) adminPort = pick();
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const t0 = performance.now();
  const contexts = Object.entries(OFFLINE_CONTEXTS).flatMap(([url, file]) => [
    "--context",
    `${url}=${file.pathname}`,
  ]);
  const child = new Deno.Command(PYTHON.pathname, {
    args: [
      new URL("start.py", ACAPY_PEER_DIR).pathname,
      ...contexts,
      "--",
      ...args(o.label, o.logLevel, port, adminPort, hook),
      ...(o.extraArgs ?? []),
    ],
    cwd: ACAPY_PEER_DIR.pathname,
    env: { PYTHONUNBUFFERED: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = collect([child.stdout, child.stderr]);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const kill = async () => {
    if (!exited) {
      try {
        child.kill("SIGTERM");
      } catch { /* exited */ }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* exited */ }
      }, 5000);
      await status;
      clearTimeout(timer);
    }
    await output.done;
  };
  try {
    // Ready: its admin API says so, and its DIDComm port is its own (ACA-Py answers a `?c_i=` GET
    // with its sentence). A taken port is logged, not fatal: that start is given up.
    await waitFor("ACA-Py ready on both ports", async () => {
      if (exited) throw new Error("ACA-Py exited before it was ready");
      if (BIND_FAILURE.test(output.text())) throw new Error("a port of ACA-Py's was taken");
      return await answers(
        `${adminUrl}/status/ready`,
        (r, b) => r.ok && b.includes('"ready": true'),
      ) &&
        await answers(
          `http://127.0.0.1:${port}/?c_i=probe`,
          (r, b) => r.ok && b.startsWith("You have received a connection invitation"),
        );
    }, o.startupTimeoutMs);
  } catch (err) {
    await kill();
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false as const, retry: BIND_FAILURE.test(output.text()), message, output };
  }
  return {
    ok: true as const,
    port,
    adminUrl,
    startupMs: Math.round(performance.now() - t0),
    output,
    kill,
  };
}

/** Starts ACA-Py; always `close()` it (e.g. in `finally`). */
export async function startAcapy(options: AcapyOptions = {}): Promise<AcapyPeer> {
  const problem = acapyProblem();
  if (problem) throw new Error(problem);
  const o = { label: "ACA-Py Peer", logLevel: "info", startupTimeoutMs: 60_000, ...options };
  const hooks = startWebhookReceiver();
  let started: Awaited<ReturnType<typeof startOnce>> | undefined;
  let attempts = 0;
  try {
    while (attempts < 5) {
      attempts++;
      started = await startOnce(o, hooks.url);
      if (started.ok || !started.retry) break;
    }
  } catch (err) {
    await hooks.server.shutdown();
    throw err;
  }
  if (!started?.ok) {
    await hooks.server.shutdown();
    throw new Error(
      `ACA-Py did not start (${attempts} attempt(s)): ${started?.message}\n` +
        `--- ACA-Py output ---\n${started?.output.text()}`,
    );
  }
  const { adminUrl, output, kill } = started;
  const adminRaw = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(adminUrl + path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.text() };
  };
  let closed: Promise<void> | undefined;
  return {
    label: o.label,
    endpoint: `http://127.0.0.1:${started.port}`,
    adminUrl,
    startupMs: started.startupMs,
    attempts,
    adminRaw,
    admin: async <T>(method: string, path: string, body?: unknown) => {
      const res = await adminRaw(method, path, body);
      if (res.status < 200 || res.status > 299) {
        throw new Error(`ACA-Py ${method} ${path}: ${res.status} ${res.body.slice(0, 2000)}`);
      }
      return (res.body ? JSON.parse(res.body) : {}) as T;
    },
    events: (topic) => hooks.events.filter((e) => topic === undefined || e.topic === topic),
    logs: () => output.text(),
    close: () => {
      closed ??= (async () => {
        await kill();
        await hooks.server.shutdown();
      })();
      return closed;
    },
  };
}
