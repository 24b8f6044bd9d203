/** Test support: a real local did:web host (and universal resolver stand-in) counting requests. */
import { createTestContext, serveLocal } from "../support/context.ts";

const KEY = "H3C2AVvLMv6gmMNam3uVAjZpfkcJCwDwnZn6z3wXmqPV";

/** A plausible did:web document for `did`. */
export function webDoc(did: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: did,
    verificationMethod: [{
      id: `${did}#key-1`,
      type: "Ed25519VerificationKey2018",
      controller: did,
      publicKeyBase58: KEY,
    }],
    authentication: [`${did}#key-1`],
    assertionMethod: [`${did}#key-1`],
    ...extra,
  };
}

/** JSON response. */
export const json = (v: unknown, status = 200) =>
  new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json" } });

/** A handler of one path; `did` is the host's root did:web. */
export type HostRoute = (req: Request, did: string) => Response | Promise<Response>;

/** A local did:web host on 127.0.0.1; every requested path is recorded in `seen`. */
export interface DidHost {
  /** `did:web:127.0.0.1%3A<port>` */
  did: string;
  url: string;
  port: number;
  seen: string[];
  /** Number of requests for `path`. */
  count(path: string): number;
  routes: Record<string, HostRoute>;
  close(): Promise<void>;
}

/** Starts a host serving `routes` (unknown paths are 404). */
export function didHost(routes: Record<string, HostRoute> = {}): DidHost {
  const seen: string[] = [];
  let did = "";
  const server = serveLocal((req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    const h = host.routes[path];
    return h ? h(req, did) : new Response("not here", { status: 404 });
  });
  did = `did:web:127.0.0.1%3A${server.port}`;
  const host: DidHost = {
    did,
    url: server.url,
    port: server.port,
    seen,
    count: (path) => seen.filter((p) => p === path).length,
    routes,
    close: server.close,
  };
  return host;
}

/** A resolution result as the cache tests read it. */
export type CacheTestResult = {
  didDocument: Record<string, unknown> | null;
  didResolutionMetadata: { servedFromCache?: boolean; error?: string };
};

/**
 * The DID cache tests' setup: a context on a movable clock (with `env`), a verified token, and a
 * local did:web host serving version `state.version` of its document (or `state.status`), each
 * answer held back until `state.gate` settles.
 */
export async function webCacheSetup(env: Record<string, string> = {}) {
  let t = 1_700_000_000_000;
  const clock = { now: () => t, advance: (ms: number) => (t += ms) };
  const state = { version: 1, status: 200, gate: Promise.resolve() };
  const host = didHost({
    "/.well-known/did.json": async (_r, did) => {
      await state.gate;
      return state.status === 200
        ? json(webDoc(did, { version: state.version }))
        : new Response("x", { status: state.status });
    },
  });
  const ctx = await createTestContext({ now: clock.now, env });
  const token = await ctx.token();
  await ctx.services.verifier.verify(token);
  const get = async (headers: Record<string, string> = {}, query = "") => {
    const res = await ctx.call("GET", `/dids/${host.did}${query}`, { token, headers });
    return { res, r: JSON.parse(await res.text()) as CacheTestResult };
  };
  return {
    ctx,
    token,
    host,
    clock,
    state,
    get,
    close: async () => {
      await ctx.close();
      await host.close();
    },
  };
}
