import assert from "node:assert/strict";
import { base58, base64urlnopad } from "@scure/base";
import type { AgentRecord } from "../../src/agents/record.ts";
import { keys } from "../../src/kv/keys.ts";
import type { OutboxMessage } from "../../src/outbox/outbox.ts";
import type { WebhookEvent } from "../../src/webhooks/events.ts";
import { expectJson, signToken } from "../support/context.ts";
import { agentsContext, configure, configureBody } from "./helpers.ts";

const PATH = "/orgs/org-a/agents/configure";

Deno.test("configure: 201 envelope with id, orgId, walletName, agentEndpoint, did, createdAt and nothing else", async () => {
  const ctx = await agentsContext();
  try {
    const { res, body } = await configure(ctx);
    const json = await expectJson(res, 201);
    assert.deepEqual(Object.keys(json).sort(), ["data", "message", "statusCode", "success"]);
    assert.equal(json.statusCode, 201);
    assert.equal(json.success, true);
    assert.match(json.message as string, /AcmeAgent.*org-a/);
    const data = json.data as Record<string, string>;
    assert.deepEqual(Object.keys(data).sort(), [
      "agentEndpoint",
      "createdAt",
      "did",
      "id",
      "orgId",
      "walletName",
    ]);
    assert.equal(data.orgId, "org-a");
    assert.equal(data.walletName, body.walletName);
    assert.equal(data.agentEndpoint, body.agentEndpoint);
    assert.match(data.id!, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(!Number.isNaN(Date.parse(data.createdAt!)));
    assert.match(
      data.did!,
      /^did:peer:2\.Vz6Mk[1-9A-HJ-NP-Za-km-z]+\.Ez6LS[1-9A-HJ-NP-Za-km-z]+\.S/,
    );
    // The DID's service carries the endpoint; its V key is the stored agent verkey.
    const rec = (await ctx.kv.get<AgentRecord>(keys.agent("org-a"))).value!;
    assert.equal(rec.did, data.did);
    const [, v, , s] = data.did!.split(".");
    const vBytes = base58.decode(v!.slice(2));
    assert.deepEqual([...vBytes.subarray(0, 2)], [0xed, 0x01]);
    assert.equal(base58.encode(vBytes.subarray(2)), rec.verkey);
    const svc = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(s!.slice(1))));
    assert.equal(svc.s, body.agentEndpoint);
    assert.equal(svc.t, "did-communication");
    assert.deepEqual(svc.recipientKeys, ["#key-1"]);
    assert.equal(rec.autoAcceptCredentials, "never");
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: admin role may configure too", async () => {
  const ctx = await agentsContext();
  try {
    const token = await ctx.token({ "org-b": ["admin"] });
    const res = await ctx.call("POST", "/orgs/org-b/agents/configure", {
      token,
      body: configureBody(),
    });
    await expectJson(res, 201);
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: agent.configured rides the same commit, without secrets", async () => {
  const ctx = await agentsContext();
  try {
    const { res, apiKey } = await configure(ctx);
    const { data } = await expectJson(res, 201) as { data: Record<string, string> };
    const ids: string[] = [];
    for await (
      const e of ctx.kv.list<string>({ prefix: keys.outboxByOrgPrefix("org-a", "webhook") })
    ) {
      ids.push(e.value);
    }
    assert.equal(ids.length, 1);
    const msg = (await ctx.kv.get<OutboxMessage<WebhookEvent>>(keys.outboxMessage(ids[0]!))).value!;
    assert.equal(msg.payload.type, "agent.configured");
    assert.equal(msg.payload.orgId, "org-a");
    assert.equal(msg.payload.data.did, data.did);
    assert.equal(msg.payload.data.id, data.id);
    assert.ok(!JSON.stringify(msg).includes(apiKey));
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: 401 without a token, with a malformed, expired or foreign-issuer token", async () => {
  const ctx = await agentsContext();
  try {
    const body = configureBody();
    const none = await ctx.call("POST", PATH, { body });
    const j = await expectJson(none, 401);
    assert.equal(j.error, "Unauthorized");
    assert.equal(none.headers.get("www-authenticate"), "Bearer");
    const bad = [
      "not-a-jwt",
      await signToken(ctx.idp, { orgs: { "org-a": ["owner"] }, expiresIn: -3600 }),
      await signToken(ctx.idp, { orgs: { "org-a": ["owner"] }, iss: "https://evil.test" }),
      await signToken(ctx.idp, { orgs: { "org-a": ["owner"] }, aud: "someone-else" }),
    ];
    for (const token of bad) {
      const res = await ctx.call("POST", PATH, { token, body });
      const e = await expectJson(res, 401);
      assert.equal(e.statusCode, 401);
      assert.equal(res.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
    }
    assert.equal((await ctx.kv.get(keys.agent("org-a"))).value, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: 403 for member roles, for another org's owner, before body validation", async () => {
  const ctx = await agentsContext();
  try {
    const roleSets: Record<string, string[]>[] = [
      { "org-a": ["member", "issuer", "holder", "verifier"] },
      { "org-b": ["owner"] },
    ];
    for (const orgs of roleSets) {
      const token = await ctx.token(orgs);
      const res = await ctx.call("POST", PATH, { token, body: configureBody() });
      const e = await expectJson(res, 403);
      assert.equal(e.error, "Forbidden");
      // A bad body from someone without the role is still 403: nothing is validated for them.
      const res2 = await ctx.call("POST", PATH, { token, body: { nonsense: true } });
      await expectJson(res2, 403);
    }
    assert.equal((await ctx.kv.get(keys.agent("org-a"))).value, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: 400 with details for a malformed orgId", async () => {
  const ctx = await agentsContext();
  try {
    for (const orgId of ["-leading-dash", "has space", "a".repeat(65), "ünï"]) {
      const token = await ctx.token({ [orgId]: ["owner"] });
      const res = await ctx.call("POST", `/orgs/${encodeURIComponent(orgId)}/agents/configure`, {
        token,
        body: configureBody(),
      });
      const e = await expectJson(res, 400);
      const details = e.details as { path: string }[];
      assert.equal(details[0]!.path, "orgId", orgId);
    }
    // 64 characters is fine.
    const ok = "a".repeat(64);
    const res = await ctx.call("POST", `/orgs/${ok}/agents/configure`, {
      token: await ctx.token({ [ok]: ["owner"] }),
      body: configureBody(),
    });
    await expectJson(res, 201);
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: 400 with details for each bad field, unknown fields, missing fields", async () => {
  const ctx = await agentsContext();
  try {
    const token = await ctx.token();
    const cases: [Record<string, unknown>, string][] = [
      [{ walletName: "A" }, "walletName"],
      [{ walletName: "A".repeat(26) }, "walletName"],
      [{ walletName: "Acme Agent" }, "walletName"],
      [{ walletName: "Acme-Agent" }, "walletName"],
      [{ walletName: 42 }, "walletName"],
      [{ agentEndpoint: "not a url" }, "agentEndpoint"],
      [{ agentEndpoint: "/didcomm" }, "agentEndpoint"],
      [{ agentEndpoint: "ftp://example.com/didcomm" }, "agentEndpoint"],
      [{ agentEndpoint: "https://user:pw@example.com/didcomm" }, "agentEndpoint"],
      [{ agentEndpoint: "https://example.com/" + "x".repeat(2049) }, "agentEndpoint"],
      [{ apiKey: "x".repeat(15) }, "apiKey"],
      [{ apiKey: "x".repeat(513) }, "apiKey"],
      [{ extra: "field" }, "(body)"],
      [{ apiKey: undefined }, "apiKey"],
    ];
    for (const [over, path] of cases) {
      const body = configureBody(over);
      const res = await ctx.call("POST", PATH, { token, body });
      const e = await expectJson(res, 400);
      const details = e.details as { path: string; message: string }[];
      assert.ok(
        details.some((d) => d.path === path),
        `${JSON.stringify(over).slice(0, 80)} → ${JSON.stringify(details)}`,
      );
    }
    const notJson = await ctx.call("POST", PATH, { token, body: "{nope" });
    await expectJson(notJson, 400);
    // Boundaries that pass: 2 and 25 characters, 16 and 512 character keys, 2048 character URL.
    for (
      const [org, over] of [
        ["b1", { walletName: "Ab", apiKey: "x".repeat(16) }],
        ["b2", { walletName: "A".repeat(25), apiKey: "x".repeat(512) }],
        ["b3", { agentEndpoint: "https://example.com/" + "x".repeat(2048 - 20) }],
      ] as const
    ) {
      const res = await ctx.call("POST", `/orgs/${org}/agents/configure`, {
        token: await ctx.token({ [org]: ["owner"] }),
        body: configureBody(over),
      });
      await expectJson(res, 201);
    }
    assert.equal((await ctx.kv.get(keys.agent("org-a"))).value, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: http agentEndpoint is 400 while https is required", async () => {
  const ctx = await agentsContext({ env: { OUTBOUND_REQUIRE_HTTPS: "true" } });
  try {
    const token = await ctx.token();
    const res = await ctx.call("POST", PATH, { token, body: configureBody() });
    const e = await expectJson(res, 400);
    assert.match(JSON.stringify(e.details), /https/);
    const ok = await ctx.call("POST", PATH, {
      token,
      body: configureBody({ agentEndpoint: "https://agent.example.com/didcomm" }),
    });
    await expectJson(ok, 201);
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: a second configure is 409 naming PATCH and DELETE; the first stays", async () => {
  const ctx = await agentsContext();
  try {
    const first = await configure(ctx);
    const { data } = await expectJson(first.res, 201) as { data: { did: string } };
    const second = await configure(ctx, "org-a", { walletName: "Other" });
    const e = await expectJson(second.res, 409);
    assert.match(e.message as string, /PATCH/);
    assert.match(e.message as string, /DELETE/);
    const rec = (await ctx.kv.get<AgentRecord>(keys.agent("org-a"))).value!;
    assert.equal(rec.walletName, "AcmeAgent");
    assert.equal(rec.did, data.did);
  } finally {
    await ctx.close();
  }
});

Deno.test("configure: concurrent configures of one org give exactly one 201, the rest 409", async () => {
  const ctx = await agentsContext();
  try {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => configure(ctx, "org-a", { walletName: `Agent${i}` })),
    );
    const statuses = results.map((r) => r.res.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409]);
    const winner = results.find((r) => r.res.status === 201)!;
    const rec = (await ctx.kv.get<AgentRecord>(keys.agent("org-a"))).value!;
    assert.equal(rec.walletName, winner.body.walletName);
    // Exactly one wallet key, one verkey pointer, one API key pointer and one event were written.
    const count = async (prefix: Deno.KvKey) => {
      let n = 0;
      for await (const _ of ctx.kv.list({ prefix })) n++;
      return n;
    };
    assert.equal(await count(keys.agentKeyPrefix("org-a")), 1);
    assert.equal(await count(["agent_by_verkey"]), 1);
    assert.equal(await count(["agent_by_api_key"]), 1);
    assert.equal(await count(keys.outboxByOrgPrefix("org-a", "webhook")), 1);
    for (const r of results) await r.res.body?.cancel();
  } finally {
    await ctx.close();
  }
});
