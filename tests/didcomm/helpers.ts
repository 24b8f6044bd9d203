/** Shared setup of the DIDComm tests: the real app on a real port. */
import { verkeyToDidKey } from "../../src/crypto/mod.ts";
import { type ContextOptions, createTestContext, type TestContext } from "../support/context.ts";
import { waitFor as waitUntil } from "../support/wait.ts";

/** A test context served on a real 127.0.0.1 port (so peers can POST to `/didcomm`). */
export interface ServedContext extends TestContext {
  port: number;
  baseUrl: string;
  /** `${baseUrl}/didcomm` */
  endpoint: string;
}

/** Starts a real server for a DIDComm-enabled app; `close()` stops both. */
export async function servedContext(opts: ContextOptions = {}): Promise<ServedContext> {
  const slot: { fetch?: (req: Request) => Response | Promise<Response> } = {};
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req) => slot.fetch ? slot.fetch(req) : new Response("starting", { status: 503 }),
  );
  const port = server.addr.port;
  const baseUrl = `http://127.0.0.1:${port}`;
  let ctx: TestContext;
  try {
    ctx = await createTestContext({ ...opts, env: { PUBLIC_URL: baseUrl, ...opts.env } });
  } catch (err) {
    await server.shutdown();
    throw err;
  }
  slot.fetch = (req) => ctx.app.fetch(req);
  return {
    ...ctx,
    port,
    baseUrl,
    endpoint: `${baseUrl}/didcomm`,
    close: async () => {
      await server.shutdown();
      await ctx.close();
    },
  };
}

/** Configures the org's agent with `endpoint` (owner token); returns the agent's data and apiKey. */
export async function configureAgent(
  ctx: TestContext,
  orgId: string,
  endpoint: string,
): Promise<Record<string, unknown>> {
  const token = await ctx.token({ [orgId]: ["owner"] });
  const apiKey = "k3y-" + crypto.randomUUID();
  const res = await ctx.call("POST", `/orgs/${orgId}/agents/configure`, {
    token,
    body: { walletName: "HolderAgent", agentEndpoint: endpoint, apiKey },
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`configure failed: ${res.status} ${text}`);
  return { ...(JSON.parse(text).data as Record<string, unknown>), apiKey };
}

/** Polls `fn` every 25 ms until it returns a truthy value (`waitFor` with a 10 s default). */
export function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  return waitUntil(what, fn, timeoutMs);
}

/** An org agent token for `apiKey` (POST /agent/token). */
export async function agentToken(ctx: TestContext, apiKey: string): Promise<string> {
  const res = await ctx.call("POST", "/agent/token", { headers: { authorization: apiKey } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`agent token failed: ${res.status} ${text}`);
  return JSON.parse(text).token;
}

/** An out-of-band 1.1 invitation (DID Exchange 1.1) to `verkey` at `endpoint`, labelled "Peer". */
export function invitationTo(verkey: string, endpoint: string): Record<string, unknown> {
  return {
    "@type": "https://didcomm.org/out-of-band/1.1/invitation",
    "@id": crypto.randomUUID(),
    label: "Peer",
    handshake_protocols: ["https://didcomm.org/didexchange/1.1"],
    services: [{
      id: "#inline-0",
      type: "did-communication",
      recipientKeys: [verkeyToDidKey(verkey)],
      routingKeys: [],
      serviceEndpoint: endpoint,
    }],
  };
}
