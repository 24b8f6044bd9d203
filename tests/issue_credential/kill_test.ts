/**
 * Never lost: the real service (`src/main.ts` subprocess) takes a JSON-LD credential from a real
 * DIDComm peer (envelopes over HTTP), `POST /credentials/accept-credential` commits `done` with
 * the ack while the peer is down, the service is killed with SIGKILL, and after a restart on the
 * same KV file the peer (back on its port with its key) receives exactly one ack on the thread.
 */
import assert from "node:assert/strict";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import { generateEd25519KeyPair } from "../../src/crypto/mod.ts";
import { createIdp, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import { drainOutbox } from "../support/outbox.ts";
import { startTestPeer, type TestPeer } from "../didcomm/test_peer.ts";
import { didKeyIdentity } from "../credentials/jsonld/test_keys.ts";
import { attachmentOf, issueMessage, offerMessage } from "./helpers.ts";

const ORG = "org-kill-cred";
type Json = Record<string, unknown>;

Deno.test("kill -9 between the accept-credential commit and the ack's delivery: the ack arrives after restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cred_kill_" });
  const idp = await createIdp();
  const env = serviceEnv(idp, dir);
  const base = `http://127.0.0.1:${env.PORT}`;
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

  let svc = await startService(env);
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
    await svc.kill();

    peer = await startTestPeer({ keyPair, port: peer.port, manual: true });
    svc = await startService(env);
    const ack = await peer.waitFor("https://didcomm.org/issue-credential/2.0/ack", 30_000);
    assert.equal(ack.status, "OK");
    assert.deepEqual(ack["~thread"], { thid });
    // The restarted service's outbox drains: a second ack would have reached the peer by then.
    const kv = await Deno.openKv(env.KV_PATH!);
    try {
      await drainOutbox(kv);
    } finally {
      kv.close();
    }
    const acks = peer.received.filter((r) => r.message["@type"].endsWith("/ack"));
    assert.equal(acks.length, 1);
    assert.equal((await get(`/credentials/${offered.id}`)).state, "done");
  } finally {
    await svc.kill();
    await peer.close().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
