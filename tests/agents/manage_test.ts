import assert from "node:assert/strict";
import type { AgentRecord } from "../../src/agents/record.ts";
import { keys } from "../../src/kv/keys.ts";
import { expectJson } from "../support/context.ts";
import { agentsContext, agentToken, configure } from "./helpers.ts";

const AGENTS = "/orgs/org-a/agents";

Deno.test("GET agents: the configuration with did, verkey and policy, never the key or its hash", async () => {
  const ctx = await agentsContext();
  try {
    const { res, apiKey } = await configure(ctx);
    const { data } = await expectJson(res, 201) as { data: Record<string, string> };
    const token = await ctx.token({ "org-a": ["admin"] });
    const got = await expectJson(await ctx.call("GET", AGENTS, { token }), 200);
    assert.deepEqual(Object.keys(got).sort(), [
      "agentEndpoint",
      "autoAcceptCredentials",
      "autoAcceptProofs",
      "createdAt",
      "did",
      "id",
      "orgId",
      "updatedAt",
      "verkey",
      "walletName",
    ]);
    assert.equal(got.id, data.id);
    assert.equal(got.did, data.did);
    assert.equal(got.autoAcceptCredentials, "never");
    assert.equal(got.autoAcceptProofs, "never");
    const rec = (await ctx.kv.get<AgentRecord>(keys.agent("org-a"))).value!;
    assert.equal(got.verkey, rec.verkey);
    const text = JSON.stringify(got);
    assert.ok(!text.includes(apiKey) && !text.includes(rec.apiKeyHash));
  } finally {
    await ctx.close();
  }
});

Deno.test("GET agents: 401, 403 (member, other org), 404 when none, 400 bad orgId", async () => {
  const ctx = await agentsContext();
  try {
    await expectJson(await ctx.call("GET", AGENTS), 401);
    const member = await ctx.token({ "org-a": ["member"] });
    await expectJson(await ctx.call("GET", AGENTS, { token: member }), 403);
    const other = await ctx.token({ "org-b": ["owner"] });
    await expectJson(await ctx.call("GET", AGENTS, { token: other }), 403);
    const owner = await ctx.token();
    await expectJson(await ctx.call("GET", AGENTS, { token: owner }), 404);
    await expectJson(await ctx.call("GET", "/orgs/.x/agents", { token: owner }), 400);
  } finally {
    await ctx.close();
  }
});

Deno.test("PATCH agents: endpoint changes the DID (same key), policy is set, key rotation swaps keys", async () => {
  const ctx = await agentsContext();
  try {
    const { res, apiKey: oldKey } = await configure(ctx);
    const { data } = await expectJson(res, 201) as { data: Record<string, string> };
    const token = await ctx.token();
    const before = await expectJson(await ctx.call("GET", AGENTS, { token }), 200);

    const p1 = await expectJson(
      await ctx.call("PATCH", AGENTS, {
        token,
        body: {
          agentEndpoint: "https://relay.example.com/didcomm",
          autoAcceptCredentials: "always",
        },
      }),
      200,
    );
    assert.equal(p1.agentEndpoint, "https://relay.example.com/didcomm");
    assert.equal(p1.autoAcceptCredentials, "always");
    assert.equal(p1.verkey, before.verkey);
    assert.notEqual(p1.did, data.did);
    assert.equal(p1.id, data.id);
    assert.equal(p1.createdAt, data.createdAt);

    const newKey = "rotated-" + crypto.randomUUID();
    await expectJson(await ctx.call("PATCH", AGENTS, { token, body: { apiKey: newKey } }), 200);
    await expectJson(await agentToken(ctx, oldKey), 401);
    await expectJson(await agentToken(ctx, newKey), 200);

    await expectJson(
      await ctx.call("PATCH", AGENTS, {
        token,
        body: { autoAcceptCredentials: "contentApproved" },
      }),
      200,
    );
    const proofs = await expectJson(
      await ctx.call("PATCH", AGENTS, { token, body: { autoAcceptProofs: "always" } }),
      200,
    );
    assert.equal(proofs.autoAcceptProofs, "always");
    const after = await expectJson(await ctx.call("GET", AGENTS, { token }), 200);
    assert.equal(after.autoAcceptCredentials, "contentApproved");
    assert.equal(after.autoAcceptProofs, "always");
    assert.equal(after.agentEndpoint, "https://relay.example.com/didcomm");
  } finally {
    await ctx.close();
  }
});

Deno.test("PATCH agents: 400 for empty, unknown or bad fields; 404 when none; 403 for members", async () => {
  const ctx = await agentsContext();
  try {
    const token = await ctx.token();
    await expectJson(
      await ctx.call("PATCH", AGENTS, { token, body: { autoAcceptCredentials: "always" } }),
      404,
    );
    await expectJson((await configure(ctx)).res, 201);
    for (
      const body of [
        {},
        { walletName: "Renamed" },
        { autoAcceptCredentials: "sometimes" },
        { autoAcceptProofs: "contentApproved" },
        { apiKey: "short" },
        { agentEndpoint: "https://u:p@example.com/" },
      ]
    ) {
      const e = await expectJson(await ctx.call("PATCH", AGENTS, { token, body }), 400);
      assert.ok(Array.isArray(e.details), JSON.stringify(body));
    }
    const member = await ctx.token({ "org-a": ["holder"] });
    await expectJson(
      await ctx.call("PATCH", AGENTS, { token: member, body: { autoAcceptCredentials: "always" } }),
      403,
    );
    await expectJson(
      await ctx.call("PATCH", AGENTS, { body: { autoAcceptCredentials: "always" } }),
      401,
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("PATCH agents: concurrent changes of different fields all land (version-checked retries)", async () => {
  const ctx = await agentsContext();
  try {
    await expectJson((await configure(ctx)).res, 201);
    const token = await ctx.token();
    const results = await Promise.all([
      ctx.call("PATCH", AGENTS, {
        token,
        body: { agentEndpoint: "https://a.example.com/didcomm" },
      }),
      ctx.call("PATCH", AGENTS, { token, body: { autoAcceptCredentials: "always" } }),
      ctx.call("PATCH", AGENTS, { token, body: { apiKey: "concurrent-key-0123456789" } }),
    ]);
    for (const r of results) await expectJson(r, 200);
    const rec = (await ctx.kv.get<AgentRecord>(keys.agent("org-a"))).value!;
    assert.equal(rec.agentEndpoint, "https://a.example.com/didcomm");
    assert.equal(rec.autoAcceptCredentials, "always");
    await expectJson(await agentToken(ctx, "concurrent-key-0123456789"), 200);
  } finally {
    await ctx.close();
  }
});

Deno.test("DELETE agents: 204 removes record, wallet keys, pointers; the key stops working; configure works again", async () => {
  const ctx = await agentsContext();
  try {
    const { res, apiKey } = await configure(ctx);
    await expectJson(res, 201);
    const rec = (await ctx.kv.get<AgentRecord>(keys.agent("org-a"))).value!;
    const token = await ctx.token();
    const del = await ctx.call("DELETE", AGENTS, { token });
    assert.equal(del.status, 204);
    assert.equal(await del.text(), "");
    await expectJson(await ctx.call("GET", AGENTS, { token }), 404);
    assert.equal((await ctx.kv.get(keys.agentKey("org-a", rec.keyId))).value, null);
    assert.equal((await ctx.kv.get(keys.agentByVerkey(rec.verkey))).value, null);
    assert.equal((await ctx.kv.get(keys.agentByApiKey(rec.apiKeyLookup, "org-a"))).value, null);
    await expectJson(await agentToken(ctx, apiKey), 401);
    await expectJson(await ctx.call("DELETE", AGENTS, { token }), 404);
    await expectJson((await configure(ctx)).res, 201);
  } finally {
    await ctx.close();
  }
});

Deno.test("DELETE agents: 409 while the org has connections, 204 with ?force=true; 403 for members", async () => {
  const ctx = await agentsContext();
  try {
    await expectJson((await configure(ctx)).res, 201);
    // A connection record of the org, as the DIDComm layer writes it.
    await ctx.kv.set(keys.connection("org-a", crypto.randomUUID()), { state: "completed" });
    const token = await ctx.token();
    const member = await ctx.token({ "org-a": ["member"] });
    await expectJson(await ctx.call("DELETE", AGENTS, { token: member }), 403);
    const e = await expectJson(await ctx.call("DELETE", AGENTS, { token }), 409);
    assert.match(e.message as string, /connections/);
    assert.match(e.message as string, /force=true/);
    await expectJson(await ctx.call("GET", AGENTS, { token }), 200);
    const forced = await ctx.call("DELETE", `${AGENTS}?force=true`, { token });
    assert.equal(forced.status, 204);
    await expectJson(await ctx.call("GET", AGENTS, { token }), 404);
    await expectJson(await ctx.call("DELETE", `${AGENTS}?force=maybe`, { token }), 400);
  } finally {
    await ctx.close();
  }
});
