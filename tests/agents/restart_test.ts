/**
 * Data survives a restart: the real service (`src/main.ts`) runs as a subprocess on a KV file, is
 * configured over HTTP, stopped, started again on the same file, and still knows the agent.
 */
import assert from "node:assert/strict";
import { Wallet } from "../../src/agents/mod.ts";
import { SecretBox } from "../../src/crypto/mod.ts";
import { createIdp, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";

Deno.test("restart: the agent, its wallet key, API key and token signing key survive on the same KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "agents_restart_" });
  const idp = await createIdp();
  const secretsKey = crypto.getRandomValues(new Uint8Array(32));
  const env = serviceEnv(idp, dir, {
    SECRETS_KEY: btoa(String.fromCharCode(...secretsKey)),
    OUTBOX_LEASE_SECONDS: undefined,
    LOG_LEVEL: "warn",
  });
  let base = ""; // the port is known once the service listens
  const owner = await signToken(idp, { orgs: { "org-r": ["owner"] } });
  const apiKey = "restart-key-" + crypto.randomUUID();
  const json = { "content-type": "application/json" };
  try {
    let svc = await startService(env);
    base = svc.base;
    let agentToken: string;
    let verkey: string;
    try {
      const res = await fetch(`${base}/orgs/org-r/agents/configure`, {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${owner}` },
        body: JSON.stringify({
          walletName: "RestartAgent",
          agentEndpoint: `${base}/didcomm`,
          apiKey,
        }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      const { data } = await res.json();
      assert.match(data.did, /^did:peer:2\./);
      const t = await fetch(`${base}/agent/token`, {
        method: "POST",
        headers: { authorization: apiKey },
      });
      assert.equal(t.status, 200);
      agentToken = (await t.json()).token;
      const got = await fetch(`${base}/orgs/org-r/agents`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      verkey = (await got.json()).verkey;
    } finally {
      const st = await svc.stop();
      assert.equal(st.code, 0, svc.output());
    }

    svc = await startService(env);
    try {
      const got = await fetch(`${base}/orgs/org-r/agents`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      assert.equal(got.status, 200);
      const agent = await got.json();
      assert.equal(agent.walletName, "RestartAgent");
      assert.equal(agent.verkey, verkey);
      // The token minted before the restart is still accepted (same service key, trusted at startup).
      const me = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${agentToken}` } });
      assert.equal(me.status, 200);
      assert.equal((await me.json()).kind, "agent");
      // The old API key still mints a token.
      const t = await fetch(`${base}/agent/token`, {
        method: "POST",
        headers: { "x-api-key": apiKey },
      });
      assert.equal(t.status, 200);
      const again = await fetch(`${base}/orgs/org-r/agents/configure`, {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${owner}` },
        body: JSON.stringify({ walletName: "Again", agentEndpoint: `${base}/didcomm`, apiKey }),
      });
      assert.equal(again.status, 409);
      await again.body?.cancel();
    } finally {
      const st = await svc.stop();
      assert.equal(st.code, 0, svc.output());
    }

    // The wallet key opens with SECRETS_KEY from the file the service left behind.
    const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
    try {
      const key = await new Wallet(kv, new SecretBox(secretsKey)).findByVerkey(verkey);
      assert.equal(key?.orgId, "org-r");
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
