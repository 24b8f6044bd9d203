/**
 * Test support for did:plc: a real local HTTP server in the place of the PLC directory. It serves
 * audit logs it was given (`logs`), or forwards to a real directory (`upstream`: the reference
 * directory of `tests/interop/plc_peer`) and can change what comes back on the way (`tamper`): a
 * tampering proxy. Every requested path is recorded. `withReferenceDirectory` runs a test with
 * the reference directory, such a proxy in front of it and a service resolving through the proxy.
 */
import {
  type PlcAuditEntry,
  type PlcDirectoryPeer,
  startPlcDirectory,
} from "../interop/plc_peer.ts";
import { createTestContext, serveLocal, type TestContext } from "../support/context.ts";

/** The local directory (or proxy). */
export interface PlcDirectoryStandIn {
  /** Its base URL (`DID_PLC_DIRECTORY_URL`). */
  url: string;
  /** Paths requested so far. */
  seen: string[];
  /** Audit logs served for a DID (before the upstream is asked). */
  logs: Map<string, unknown>;
  /** Changes the upstream's (or `logs`') audit log of a DID before it is served. */
  tamper: Map<string, (log: PlcAuditEntry[]) => unknown>;
  /** When set, every request is answered with this status (a failing directory). */
  status?: number;
  close(): Promise<void>;
}

/** Starts a local directory serving `logs`, or a proxy in front of `upstream`. */
export function plcDirectory(
  options: { upstream?: string; logs?: Record<string, unknown> } = {},
): PlcDirectoryStandIn {
  const seen: string[] = [];
  const server = serveLocal(async (req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    if (standIn.status !== undefined) return new Response("down", { status: standIn.status });
    const did = decodeURIComponent(path.split("/")[1] ?? "");
    let log: unknown = standIn.logs.get(did);
    if (log === undefined && options.upstream && path.endsWith("/log/audit")) {
      const res = await fetch(options.upstream + path);
      if (res.status !== 200) return new Response(await res.text(), { status: res.status });
      log = await res.json();
    }
    if (log === undefined) return new Response(`DID not registered: ${did}`, { status: 404 });
    const change = standIn.tamper.get(did);
    const body = change ? change(structuredClone(log) as PlcAuditEntry[]) : log;
    return new Response(typeof body === "string" ? body : JSON.stringify(body), {
      headers: { "content-type": "application/json" },
    });
  });
  const standIn: PlcDirectoryStandIn = {
    url: server.url,
    seen,
    logs: new Map(Object.entries(options.logs ?? {})),
    tamper: new Map(),
    close: server.close,
  };
  return standIn;
}

/** A resolution result as the tests read it. */
export interface PlcResult {
  didDocument: Record<string, unknown> | null;
  didDocumentMetadata: Record<string, unknown>;
  didResolutionMetadata: Record<string, unknown>;
}

/** A test context whose `DID_PLC_DIRECTORY_URL` is `directoryUrl`, a token, and a GET helper. */
export async function plcContext(
  directoryUrl: string,
  options: { env?: Record<string, string | undefined>; now?: () => number } = {},
) {
  const ctx: TestContext = await createTestContext({
    env: { DID_PLC_DIRECTORY_URL: directoryUrl, ...options.env },
    now: options.now,
  });
  const token = await ctx.token();
  const get = async (path: string) => {
    const res = await ctx.call("GET", path, { token });
    return { status: res.status, body: await res.json() as PlcResult };
  };
  return { ctx, token, get };
}

/** What a test with the reference directory gets (see {@link withReferenceDirectory}). */
export interface ReferenceRun extends Awaited<ReturnType<typeof plcContext>> {
  /** The reference directory (`@did-plc/server`) and its scenarios. */
  peer: PlcDirectoryPeer;
  /** The proxy in front of it: what the service reads, and what can tamper or fail. */
  dir: PlcDirectoryStandIn;
}

/**
 * Runs `fn` with the reference PLC directory, a proxy stand-in in front of it and a service whose
 * `DID_PLC_DIRECTORY_URL` is the proxy (`options` as {@link plcContext}'s); closes all three
 * afterwards, whatever `fn` does. Returns what `fn` returns.
 */
export async function withReferenceDirectory<T>(
  options: Parameters<typeof plcContext>[1],
  fn: (run: ReferenceRun) => Promise<T>,
): Promise<T> {
  const peer = await startPlcDirectory();
  try {
    const dir = plcDirectory({ upstream: peer.directoryUrl });
    try {
      const run = await plcContext(dir.url, options);
      try {
        return await fn({ ...run, peer, dir });
      } finally {
        await run.ctx.close();
      }
    } finally {
      await dir.close();
    }
  } finally {
    await peer.close();
  }
}
