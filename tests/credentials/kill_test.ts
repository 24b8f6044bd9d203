/**
 * Never lost: the real service (`src/main.ts` subprocess) takes a JSON-LD credential from a real
 * DIDComm peer (envelopes over HTTP), `POST /credentials/accept-credential` commits `done` with
 * the ack while the peer is down, the service is killed with SIGKILL, and after a restart on the
 * same KV file the peer (back on its port with its key) receives exactly one ack on the thread.
 */
import assert from "node:assert/strict";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import { generateEd25519KeyPair } from "../../src/didcomm/keys.ts";
import { createIdp, signToken, TEST_AUDIENCE, TEST_ISSUER } from "../support/context.ts";
import { startTestPeer, type TestPeer } from "../didcomm/test_peer.ts";
import { didKeyIdentity } from "./jsonld/test_keys.ts";
import { attachmentOf, issueMessage, offerMessage } from "./helpers.ts";

const ROOT = new URL("../../", import.meta.url);
const ORG = "org-kill-cred";
type Json = Record<string, unknown>;

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function startService(env: Record<string, string>, base: string) {
  const child = new Deno.Command(Deno.execPath(), {
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
  await waitFor("service health", async () => {
    try {
      const r = await fetch(`${base}/health`);
      await r.body?.cancel();
      return r.ok;
    } catch {
      return false;
    }
  }).catch(async (err) => {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`${err.message}: ${out.join("")}`);
  });
  return { child, output: out, drained };
}

Deno.test("kill -9 between the accept-credential commit and the ack's delivery: the ack arrives after restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cred_kill_" });
  const idp = await createIdp();
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? dir,
    DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
    PORT: String(port),
    HOSTNAME: "127.0.0.1",
    KV_PATH: `${dir}/kv.sqlite3`,
    SECRETS_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
    AUTH_PUBLIC_KEY: JSON.stringify(idp.publicJwk),
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    PUBLIC_URL: base,
    OUTBOUND_REQUIRE_HTTPS: "false",
    OUTBOUND_ALLOW_PRIVATE: "true",
    OUTBOX_LEASE_SECONDS: "2",
    LOG_LEVEL: "error",
  };
  const keyPair = await generateEd25519KeyPair();
  let peer: TestPeer = await startTestPeer({ keyPair });
  const issuer = didKeyIdentity();
  const owner = { authorization: `Bearer ${await signToken(idp, { orgs: { [ORG]: ["owner"] } })}` };
  const json = { "content-type": "application/json" };
  const get = async (path: string) =>
    await (await fetch(`${base}${path}`, { headers: owner })).json() as Json;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...owner, ...json },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() as Json };
  };
  const recordIn = (thid: string, state: string) =>
    waitFor(`record in ${state}`, async () => {
      const list = (await get(`/orgs/${ORG}/credentials`)).data as Json[];
      return list.find((r) => r.threadId === thid && r.state === state);
    });

  let svc = await startService(env, base);
  try {
    const conf = await post(`/orgs/${ORG}/agents/configure`, {
      walletName: "KillAgent",
      agentEndpoint: `${base}/didcomm`,
      apiKey: "k3y-" + crypto.randomUUID(),
    });
    assert.equal(conf.status, 201, JSON.stringify(conf.body));
    const created = await post(`/orgs/${ORG}/connections/receive-invitation`, {
      invitation: peer.invitation(),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await waitFor(
      "connection completed",
      async () => (await get(`/orgs/${ORG}/connections/${created.body.id}`)).state === "completed",
    );

    const thid = crypto.randomUUID();
    assert.equal(await peer.send(offerMessage(issuer.did, { thid })), 202);
    const offered = await recordIn(thid, "offer-received");
    assert.equal(
      (await post("/credentials/accept-offer", { credentialRecordId: offered.id })).status,
      200,
    );
    const request = await peer.waitFor(
      "https://didcomm.org/issue-credential/2.0/request-credential",
    );
    const detail = attachmentOf(request, "requests~attach") as { credential: Json };
    const vc = await signCredential(detail.credential, {
      keyPair: issuer.keyPair,
      suite: "Ed25519Signature2018",
    });
    await peer.send(issueMessage(thid, vc));
    await recordIn(thid, "credential-received");

    await peer.close(); // the ack cannot be delivered now
    const accepted = await post("/credentials/accept-credential", {
      credentialRecordId: offered.id,
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.state, "done");
    svc.child.kill("SIGKILL");
    await svc.child.status;
    await svc.drained;

    peer = await startTestPeer({ keyPair, port: peer.port, manual: true });
    svc = await startService(env, base);
    const ack = await peer.waitFor("https://didcomm.org/issue-credential/2.0/ack", 30_000);
    assert.equal(ack.status, "OK");
    assert.deepEqual(ack["~thread"], { thid });
    await new Promise((r) => setTimeout(r, 500));
    const acks = peer.received.filter((r) => r.message["@type"].endsWith("/ack"));
    assert.equal(acks.length, 1);
    assert.equal((await get(`/credentials/${offered.id}`)).state, "done");
  } finally {
    try {
      svc.child.kill("SIGKILL");
      await svc.child.status;
      await svc.drained;
    } catch { /* already gone */ }
    await peer.close().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
