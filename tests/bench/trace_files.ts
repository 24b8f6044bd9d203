/**
 * The files of `src/` a request reads: those whose functions run while the service answers it,
 * after one warm-up of the same kind (so lazy loads and first-use caches are not counted). V8
 * precise coverage through `node:inspector`, reset right before the request. What src/README.md's
 * traces list. Five requests, over real parts: `GET /dids` of a did:web on a local host, the
 * accept-credential of an exchange with a test peer over a real connection, a Present Proof
 * request from that peer (`POST /didcomm` and its processing), an OpenID4VP request of the local
 * verifier, and a did:ethr on anvil (the interop peers' packages: `task setup-interop`).
 *
 *     deno run -A --lock=tests/deno.lock tests/bench/trace_files.ts [did:web accept-credential
 *       present-proof openid4vp did:ethr]
 */
import { Session } from "node:inspector";

const root = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const only = new Set(Deno.args);
const T = (p: string) => import(`${root}/tests/${p}`);
const src = `file://${root}/src/`;

const session = new Session();
session.connect();
// deno-lint-ignore no-explicit-any
const post = (m: string, p?: unknown): Promise<any> =>
  new Promise((res, rej) => session.post(m, p as never, (e, r) => (e ? rej(e) : res(r))));
await post("Profiler.enable");
await post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });

async function traced(fn: () => Promise<unknown>): Promise<string[]> {
  await post("Profiler.takePreciseCoverage");
  await fn();
  const r = await post("Profiler.takePreciseCoverage");
  const files = new Set<string>();
  for (const s of r.result) {
    if (!s.url.startsWith(src)) continue;
    // deno-lint-ignore no-explicit-any
    if (s.functions.some((f: any) => f.ranges[0].startOffset > 0 && f.ranges[0].count > 0)) {
      files.add(s.url.slice(src.length));
    }
  }
  return [...files].sort();
}

const results: Record<string, string[]> = {};
const want = (n: string) => only.size === 0 || only.has(n);

const { servedContext, configureAgent, waitFor } = await T("didcomm/helpers.ts");
const { startTestPeer } = await T("didcomm/test_peer.ts");
const { offerMessage, issueMessage, offeredCredential } = await T("issue_credential/helpers.ts");
const { didKeyIdentity } = await T("credentials/jsonld/test_keys.ts");
const { requestMessage, definition } = await T("present_proof/helpers.ts");
const { startLocalVerifier } = await T("openid4vp/local_verifier.ts");
const { storeSdJwt, VCT } = await T("openid4vp/stored_credentials.ts");
const { didHost, webDoc, json } = await T("did/did_host.ts");
const { keys } = await import(`${root}/src/kv/mod.ts`);
const { signCredential } = await import(`${root}/src/credentials/jsonld/sign.ts`);

const ORG = "org-a";
const ctx = await servedContext();
const token = await ctx.token({ [ORG]: ["owner"] });
const drain = async () => {
  while (await ctx.services.dispatcher.runOnce() > 0) { /* all due */ }
};

if (want("did:web")) {
  const host = didHost({
    "/a/did.json": (_: Request, did: string) => json(webDoc(`${did}:a`)),
    "/b/did.json": (_: Request, did: string) => json(webDoc(`${did}:b`)),
  });
  const get = async (p: string) => {
    const res = await ctx.call("GET", `/dids/${host.did}:${p}`, { token });
    if (res.status !== 200) throw new Error(`did:web ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  await get("a");
  results["GET /dids did:web (a miss)"] = await traced(() => get("b"));
  await host.close();
}

const peer = await startTestPeer();
ctx.services.dispatcher.start();
await configureAgent(ctx, ORG, ctx.endpoint);
const conn = await (await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
  token,
  body: { invitation: peer.invitation() },
})).json();
await waitFor("completed", async () => {
  const r = await ctx.call("GET", `/orgs/${ORG}/connections/${conn.id}`, { token });
  return (await r.json()).state === "completed";
});

const issuer = didKeyIdentity();
async function exchange(): Promise<string> {
  const offer = offerMessage(issuer.did);
  const thid = offer["~thread"].thid;
  await peer.send(offer);
  const byThread = async () => (await ctx.kv.get(keys.credentialByThread(ORG, thid))).value;
  const id = await waitFor("offer", byThread);
  const r = await ctx.call("POST", "/credentials/accept-offer", {
    token,
    body: { credentialRecordId: id },
  });
  if (r.status !== 200) throw new Error(`accept-offer ${r.status} ${await r.text()}`);
  await waitFor(
    "request",
    () =>
      Promise.resolve(
        peer.received.some((m: { message: Record<string, unknown> }) =>
          String(m.message["@type"]).endsWith("request-credential") &&
          (m.message["~thread"] as { thid: string }).thid === thid
        ),
      ),
  );
  const vc = await signCredential(offeredCredential(issuer.did), {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
  await peer.send(issueMessage(thid, vc));
  await waitFor("credential-received", async () => {
    const g = await ctx.call("GET", `/credentials/${id}`, { token });
    return (await g.json()).state === "credential-received";
  });
  return id;
}
const ex1 = await exchange();
const ex2 = await exchange();
await ctx.services.dispatcher.stop();
await drain();

if (want("accept-credential")) {
  const accept = async (id: string) => {
    const r = await ctx.call("POST", "/credentials/accept-credential", {
      token,
      body: { credentialRecordId: id },
    });
    if (r.status !== 200) throw new Error(`accept-credential ${r.status} ${await r.text()}`);
  };
  await accept(ex1);
  await drain();
  results["POST /credentials/accept-credential"] = await traced(() => accept(ex2));
  await drain();
}

if (want("present-proof")) {
  const pd = () => definition(["name", "$.credentialSubject.name"]);
  ctx.services.dispatcher.start();
  const receive = async (message: Record<string, unknown>, envelope: string) => {
    const r = await fetch(ctx.endpoint, {
      method: "POST",
      headers: { "content-type": "application/didcomm-envelope-enc" },
      body: envelope,
    });
    if (r.status !== 202) throw new Error(`POST /didcomm ${r.status}`);
    await r.body?.cancel();
    await waitFor(
      "proof record",
      async () => (await ctx.kv.get(keys.proofByThread(ORG, message["@id"]))).value,
    );
  };
  const req1 = requestMessage(pd());
  await receive(req1, await peer.pack(req1));
  const req2 = requestMessage(pd());
  const env2 = await peer.pack(req2);
  results["a Present Proof request (POST /didcomm + its processing)"] = await traced(() =>
    receive(req2, env2)
  );
  await ctx.services.dispatcher.stop();
}

if (want("openid4vp")) {
  await storeSdJwt(ctx, ORG, { given_name: "Erika", family_name: "Mustermann" });
  const verifier = await startLocalVerifier();
  const receive = async () => {
    const req = await verifier.request({
      signer: "did",
      dcql: {
        credentials: [{
          id: "pid",
          format: "dc+sd-jwt",
          meta: { vct_values: [VCT] },
          claims: [{ path: ["given_name"] }],
        }],
      },
    });
    return async () => {
      const r = await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
        token,
        body: { request: req.link },
      });
      if (r.status !== 201) throw new Error(`openid4vp ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    };
  };
  await (await receive())();
  const second = await receive();
  results["an OpenID4VP request (POST /orgs/{orgId}/openid4vp/requests)"] = await traced(second);
  await verifier.close();
}
await peer.close();
await ctx.close();

if (want("did:ethr")) {
  const { startAnvil, chain } = await T("interop/chain_peer.ts");
  const { createTestContext } = await T("support/context.ts");
  const anvil = await startAnvil();
  try {
    // deno-lint-ignore no-explicit-any
    const setup: any = await chain("setup", anvil.rpcUrl);
    const ethr = [{
      name: "dev",
      chainId: setup.chainId,
      rpcUrl: anvil.rpcUrl,
      registry: setup.ethrRegistry,
    }];
    const c = await createTestContext({ env: { DID_ETHR_NETWORKS: JSON.stringify(ethr) } });
    const t = await c.token();
    const get = async (addr: string) => {
      const res = await c.call("GET", `/dids/did:ethr:dev:${addr}`, { token: t });
      if (res.status !== 200) throw new Error(`did:ethr ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    await get("0x" + "1".repeat(40));
    results["GET /dids did:ethr (a miss)"] = await traced(() => get("0x" + "2".repeat(40)));
    await c.close();
  } finally {
    await anvil.stop();
  }
}

console.log(JSON.stringify(results, null, 2));
Deno.exit(0);
