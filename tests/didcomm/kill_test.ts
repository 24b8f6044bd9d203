/**
 * Never lost: the real service (`src/main.ts` subprocess) commits a connection request for a peer
 * whose endpoint hangs, is killed with SIGKILL while the delivery is in flight, and after a
 * restart on the same KV file the peer receives the request (decrypted with its own key).
 */
import assert from "node:assert/strict";
import { unpackMessage } from "../../src/didcomm/envelope.ts";
import { generateEd25519KeyPair } from "../../src/crypto/ed25519.ts";
import { createIdp, serveLocal, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import { invitationTo } from "./helpers.ts";

const ORG = "org-kill";

Deno.test("kill -9 between commit and delivery: the DIDComm message arrives after restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "didcomm_kill_" });
  const idp = await createIdp();
  const env = serviceEnv(idp, dir);
  let base = ""; // the port is known once the service listens

  // The peer: phase 1 requests arrive and hang; phase 2 it decrypts and answers 200.
  const kp = await generateEd25519KeyPair();
  let hanging = true;
  let hung = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const delivered: Record<string, unknown>[] = [];
  const peer = serveLocal(async (req) => {
    const body = new Uint8Array(await req.arrayBuffer());
    if (hanging) {
      hung++;
      await released;
      return new Response(null, { status: 503 });
    }
    const un = await unpackMessage(
      body,
      (k) => Promise.resolve(k === kp.verkey ? kp.secretKey : undefined),
    );
    delivered.push(un.message);
    return new Response(null, { status: 200 });
  });

  const owner = { authorization: `Bearer ${await signToken(idp, { orgs: { [ORG]: ["owner"] } })}` };
  const json = { "content-type": "application/json" };
  let svc = await startService(env);
  base = svc.base;
  try {
    const conf = await fetch(`${base}/orgs/${ORG}/agents/configure`, {
      method: "POST",
      headers: { ...owner, ...json },
      body: JSON.stringify({
        walletName: "KillAgent",
        agentEndpoint: `${base}/didcomm`,
        apiKey: "k3y-" + crypto.randomUUID(),
      }),
    });
    assert.equal(conf.status, 201, await conf.text());
    const invitation = invitationTo(kp.verkey, peer.url);
    const res = await fetch(`${base}/orgs/${ORG}/connections/receive-invitation`, {
      method: "POST",
      headers: { ...owner, ...json },
      body: JSON.stringify({ invitation }),
    });
    const created = await res.json();
    assert.equal(res.status, 201, JSON.stringify(created));

    await waitFor("the request in flight at the hanging peer", () => hung >= 1);
    await svc.kill();
    hanging = false;
    release();

    svc = await startService(env);
    await waitFor("the request delivered after restart", () => delivered.length >= 1);
    const request = delivered[0]!;
    assert.equal(request["@type"], "https://didcomm.org/didexchange/1.1/request");
    assert.equal(request["@id"], created.threadId);
    assert.equal(request.did, created.did);
    const after = await fetch(`${base}/orgs/${ORG}/connections/${created.id}`, { headers: owner });
    assert.equal((await after.json()).state, "request-sent");
  } finally {
    await svc.kill();
    release();
    await peer.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
