import assert from "node:assert/strict";
import * as jose from "jose";
import { loadServiceSigner } from "../../src/agents/mod.ts";
import { keys } from "../../src/kv/mod.ts";
import { expectJson } from "../support/context.ts";
import { agentsContext, agentToken, configure, configureBody } from "./helpers.ts";

const ISSUER = "http://127.0.0.1:8000/agent";

Deno.test("token: the raw key in authorization gives a 15-minute EdDSA token scoped to the org as member", async () => {
  const ctx = await agentsContext();
  try {
    const { res, apiKey } = await configure(ctx);
    await expectJson(res, 201);
    const body = await expectJson(await agentToken(ctx, apiKey), 200);
    assert.equal(body.expiresIn, 900);
    const token = body.token as string;
    const header = jose.decodeProtectedHeader(token);
    assert.equal(header.alg, "EdDSA");
    const claims = jose.decodeJwt(token);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.aud, ISSUER);
    assert.equal(claims.sub, "agent:org-a");
    assert.deepEqual(claims.resource_access, { "org-a": { roles: ["member"] } });
    assert.equal(claims.exp! - claims.iat!, 900);
    // Accepted by the auth middleware beside IdP tokens, as an agent principal.
    const me = await expectJson(await ctx.call("GET", "/me", { token }), 200);
    assert.deepEqual(me, { sub: "agent:org-a", kind: "agent", orgs: { "org-a": ["member"] } });
  } finally {
    await ctx.close();
  }
});

Deno.test("token: x-api-key, 'ApiKey <key>', and naming the org by query, header or body all work", async () => {
  const ctx = await agentsContext();
  try {
    const { apiKey } = await configure(ctx);
    const variants = [
      agentToken(ctx, "ignored", { headers: { "x-api-key": apiKey, authorization: "" } }),
      ctx.call("POST", "/agent/token", { headers: { "x-api-key": apiKey } }),
      ctx.call("POST", "/agent/token", { headers: { authorization: `ApiKey ${apiKey}` } }),
      agentToken(ctx, apiKey, { query: "?orgId=org-a" }),
      agentToken(ctx, apiKey, { headers: { "x-org-id": "org-a" } }),
      agentToken(ctx, apiKey, { body: { orgId: "org-a" } }),
      agentToken(ctx, apiKey, { body: {} }),
    ];
    for (const r of await Promise.all(variants)) {
      const b = await expectJson(r, 200);
      assert.equal(jose.decodeJwt(b.token as string).sub, "agent:org-a");
    }
    await expectJson(await agentToken(ctx, apiKey, { body: { orgId: "org-a", x: 1 } }), 400);
    await expectJson(await agentToken(ctx, apiKey, { query: "?orgId=-bad" }), 400);
  } finally {
    await ctx.close();
  }
});

Deno.test("token: 401 for a missing, wrong, too short key, or a key of another org", async () => {
  const ctx = await agentsContext();
  try {
    const a = await configure(ctx, "org-a");
    const b = await configure(ctx, "org-b");
    await expectJson(a.res, 201);
    await expectJson(b.res, 201);
    const missing = await ctx.call("POST", "/agent/token");
    await expectJson(missing, 401);
    for (
      const r of [
        await agentToken(ctx, "wrong-key-" + crypto.randomUUID()),
        await agentToken(ctx, "short"),
        await agentToken(ctx, a.apiKey.slice(0, -1)),
        await agentToken(ctx, a.apiKey + "x"),
        await agentToken(ctx, b.apiKey, { query: "?orgId=org-a" }),
        await agentToken(ctx, a.apiKey, { query: "?orgId=org-none" }),
      ]
    ) {
      const e = await expectJson(r, 401);
      assert.equal(e.message, "The agent API key is not valid.");
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("token: agent tokens are refused for administration: configure, agent admin, webhook registration", async () => {
  const ctx = await agentsContext();
  try {
    const { apiKey } = await configure(ctx);
    const { token } = await expectJson(await agentToken(ctx, apiKey), 200) as { token: string };
    const conf = await ctx.call("POST", "/orgs/org-a/agents/configure", {
      token,
      body: configureBody(),
    });
    const e = await expectJson(conf, 403);
    assert.match(e.message as string, /Agent tokens/);
    await expectJson(await ctx.call("GET", "/orgs/org-a/agents", { token }), 403);
    await expectJson(
      await ctx.call("PATCH", "/orgs/org-a/agents", {
        token,
        body: { autoAcceptCredentials: "always" },
      }),
      403,
    );
    await expectJson(await ctx.call("DELETE", "/orgs/org-a/agents", { token }), 403);
    const hook = await ctx.call("POST", "/notification/register/webhook-endpoint", {
      token,
      body: { orgId: "org-a", notificationWebhook: "https://hooks.example.com/in" },
    });
    await expectJson(hook, 403);
  } finally {
    await ctx.close();
  }
});

Deno.test("token: expires after 15 minutes (30 s tolerance); a token signed by another key is refused", async () => {
  let t = Date.now();
  const ctx = await agentsContext({ now: () => t });
  try {
    const { apiKey } = await configure(ctx);
    const { token } = await expectJson(await agentToken(ctx, apiKey), 200) as { token: string };
    t += 14 * 60_000;
    await expectJson(await ctx.call("GET", "/me", { token }), 200);
    t += 60_000 + 31_000;
    // Past exp + tolerance; also past the verifier's 60 s cache.
    await expectJson(await ctx.call("GET", "/me", { token }), 401);

    const { privateKey } = await jose.generateKeyPair("EdDSA");
    const forged = await new jose.SignJWT({ resource_access: { "org-a": { roles: ["owner"] } } })
      .setProtectedHeader({ alg: "EdDSA" })
      .setIssuer(ISSUER)
      .setAudience(ISSUER)
      .setSubject("agent:org-a")
      .setIssuedAt(Math.floor(t / 1000))
      .setExpirationTime(Math.floor(t / 1000) + 600)
      .sign(privateKey);
    await expectJson(await ctx.call("GET", "/me", { token: forged }), 401);
  } finally {
    await ctx.close();
  }
});

Deno.test("token: a key shared by two orgs needs the org named (400 without), then works for each", async () => {
  const ctx = await agentsContext();
  try {
    const apiKey = "shared-key-" + crypto.randomUUID();
    await expectJson((await configure(ctx, "org-a", { apiKey })).res, 201);
    await expectJson((await configure(ctx, "org-b", { apiKey })).res, 201);
    const e = await expectJson(await agentToken(ctx, apiKey), 400);
    assert.match(e.message as string, /orgId/);
    for (const org of ["org-a", "org-b"]) {
      const { token } = await expectJson(
        await agentToken(ctx, apiKey, { query: `?orgId=${org}` }),
        200,
      ) as { token: string };
      assert.equal(jose.decodeJwt(token).sub, `agent:${org}`);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("token: the service signing key is created once, race-safely, and stored sealed", async () => {
  const ctx = await agentsContext();
  try {
    // Several processes (here: several loads on one KV) starting at once agree on one key.
    await ctx.kv.delete(keys.serviceSigningKey());
    const signers = await Promise.all(
      Array.from({ length: 5 }, () => loadServiceSigner(ctx.services)),
    );
    assert.equal(new Set(signers.map((s) => s.kid)).size, 1);
    const stored = (await ctx.kv.get<Record<string, unknown>>(keys.serviceSigningKey())).value!;
    assert.equal(stored.kid, signers[0]!.kid);
    assert.ok(!("d" in (stored.publicJwk as object)));
    assert.match(stored.sealedPrivateJwk as string, /^v1\./);
    // A fresh load on the same KV (a restart) gives the same key and accepts older tokens.
    await expectJson((await configure(ctx)).res, 201);
    const epoch = (await ctx.kv.get<{ keyEpoch: string }>(keys.agent("org-a"))).value!.keyEpoch;
    const { token } = await signers[0]!.mintAgentToken("org-a", epoch);
    assert.equal((await loadServiceSigner(ctx.services)).kid, signers[0]!.kid);
    await expectJson(await ctx.call("GET", "/me", { token }), 200);
  } finally {
    await ctx.close();
  }
});

Deno.test("token: rotating the apiKey or removing the agent revokes its tokens at once", async () => {
  const ctx = await agentsContext();
  try {
    const { res, apiKey } = await configure(ctx);
    await expectJson(res, 201);
    const owner = await ctx.token({ "org-a": ["owner"] });
    const old = (await expectJson(await agentToken(ctx, apiKey), 200)).token as string;
    await expectJson(await ctx.call("GET", "/me", { token: old }), 200);
    await expectJson(await ctx.call("GET", "/me", { token: old }), 200); // a cached hit too

    // An update that leaves the key alone leaves its tokens alone.
    await expectJson(
      await ctx.call("PATCH", "/orgs/org-a/agents", {
        token: owner,
        body: { autoAcceptCredentials: "always" },
      }),
      200,
    );
    await expectJson(await ctx.call("GET", "/me", { token: old }), 200);

    const newKey = "rotated-key-" + crypto.randomUUID();
    await expectJson(
      await ctx.call("PATCH", "/orgs/org-a/agents", { token: owner, body: { apiKey: newKey } }),
      200,
    );
    const refused = await ctx.call("GET", "/me", { token: old });
    const e = await expectJson(refused, 401);
    assert.match(String(e.message), /API key was rotated/);
    await expectJson(await agentToken(ctx, apiKey), 401);
    const fresh = (await expectJson(await agentToken(ctx, newKey), 200)).token as string;
    await expectJson(await ctx.call("GET", "/me", { token: fresh }), 200);

    const del = await ctx.call("DELETE", "/orgs/org-a/agents", { token: owner });
    assert.equal(del.status, 204);
    await del.body?.cancel();
    await expectJson(await ctx.call("GET", "/me", { token: fresh }), 401);
  } finally {
    await ctx.close();
  }
});

Deno.test("token: an agent stored before key epochs existed keeps working with its tokens", async () => {
  const ctx = await agentsContext();
  try {
    const { res, apiKey } = await configure(ctx);
    await expectJson(res, 201);
    const entry = await ctx.kv.get<Record<string, unknown>>(keys.agent("org-a"));
    const { keyEpoch: _dropped, ...older } = entry.value!;
    await ctx.kv.set(keys.agent("org-a"), older);
    const token = (await expectJson(await agentToken(ctx, apiKey), 200)).token as string;
    assert.equal(jose.decodeJwt(token).kep, "");
    await expectJson(await ctx.call("GET", "/me", { token }), 200);
  } finally {
    await ctx.close();
  }
});
