import assert from "node:assert/strict";
import * as jose from "jose";
import { expectJson, signToken, TEST_AUDIENCE } from "../support/context.ts";
import { receiver, register, webhookContext } from "./helpers.ts";

const PATH = "/notification/register/webhook-endpoint";
const HOOK = "https://hooks.example.com/ssi";

Deno.test("registration without a token is 401 with a bare Bearer challenge; a bad token is invalid_token", async () => {
  const ctx = await webhookContext();
  try {
    let res = await ctx.call("POST", PATH, { body: { orgId: "org-a", notificationWebhook: HOOK } });
    const body = await expectJson(res, 401);
    assert.equal(body.statusCode, 401);
    assert.equal(body.error, "Unauthorized");
    assert.equal(res.headers.get("www-authenticate"), "Bearer");

    res = await ctx.call("POST", PATH, {
      token: "not.a.jwt",
      body: { orgId: "org-a", notificationWebhook: HOOK },
    });
    await expectJson(res, 401);
    assert.equal(res.headers.get("www-authenticate"), 'Bearer error="invalid_token"');

    const expired = await signToken(ctx.idp, { orgs: { "org-a": ["owner"] }, expiresIn: -120 });
    res = await ctx.call("POST", PATH, {
      token: expired,
      body: { orgId: "org-a", notificationWebhook: HOOK },
    });
    await expectJson(res, 401);
  } finally {
    await ctx.close();
  }
});

Deno.test("registration is 403 for members without owner/admin, other orgs' owners and agent tokens", async () => {
  const ctx = await webhookContext();
  try {
    const body = { orgId: "org-a", notificationWebhook: HOOK };
    const roleSets: Record<string, string[]>[] = [
      { "org-a": ["issuer", "member"] },
      { "org-b": ["owner"] },
      {},
    ];
    for (const orgs of roleSets) {
      const res = await ctx.call("POST", PATH, { token: await ctx.token(orgs), body });
      const env = await expectJson(res, 403);
      assert.equal(env.statusCode, 403);
      assert.equal(env.error, "Forbidden");
    }
    // An agent token (the service's own issuer, kind "agent") never administers, even as owner.
    const { privateKey, publicKey } = await jose.generateKeyPair("ES256");
    ctx.services.verifier.trust({
      issuer: "urn:test:agent",
      audience: [TEST_AUDIENCE],
      algorithms: ["ES256"],
      key: publicKey,
      kind: "agent",
    });
    const agent = await new jose.SignJWT({ resource_access: { "org-a": { roles: ["owner"] } } })
      .setProtectedHeader({ alg: "ES256" }).setIssuer("urn:test:agent").setAudience(TEST_AUDIENCE)
      .setSubject("agent:org-a").setExpirationTime("5m").sign(privateKey);
    const res = await ctx.call("POST", PATH, { token: agent, body });
    const env = await expectJson(res, 403);
    assert.match(String(env.message), /Agent tokens/);
    assert.equal((await ctx.kv.get(["webhook", "org-a"])).value, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("registration is 400 for a bad orgId, bad URLs and unknown or missing fields; the message names the rule", async () => {
  const ctx = await webhookContext({ env: { OUTBOUND_REQUIRE_HTTPS: "true" } });
  try {
    const long = "a".repeat(65);
    for (const orgId of ["-org", "org a", long, "", "org/a"]) {
      const token = await ctx.token({ [orgId]: ["owner"] });
      const res = await ctx.call("POST", PATH, {
        token,
        body: { orgId, notificationWebhook: HOOK },
      });
      const env = await expectJson(res, 400);
      assert.match(String(env.message), /orgId/, orgId);
    }
    const token = await ctx.token({ "org-a": ["owner"] });
    const cases: [string, RegExp][] = [
      ["hooks.example.com/x", /not an absolute URL/],
      ["/relative", /not an absolute URL/],
      ["ftp://hooks.example.com/x", /Only http and https/],
      ["https://user:pw@hooks.example.com/x", /user info/],
      ["https://user@hooks.example.com/x", /user info/],
      ["https://hooks.example.com/" + "a".repeat(2030), /2048/],
      ["http://hooks.example.com/x", /https is required/],
    ];
    for (const [url, rule] of cases) {
      const res = await ctx.call("POST", PATH, {
        token,
        body: { orgId: "org-a", notificationWebhook: url },
      });
      const env = await expectJson(res, 400);
      assert.match(String(env.message), rule, url);
      assert.deepEqual((env.details as { path: string }[])[0]?.path, "notificationWebhook");
    }
    for (
      const body of [
        { orgId: "org-a" },
        { notificationWebhook: HOOK },
        { orgId: "org-a", notificationWebhook: HOOK, extra: 1 },
        { orgId: 5, notificationWebhook: HOOK },
      ]
    ) {
      const res = await ctx.call("POST", PATH, { token, body });
      await expectJson(res, 400);
    }
    const res = await ctx.call("POST", PATH, { token, body: "{not json" });
    await expectJson(res, 400);
    assert.equal((await ctx.kv.get(["webhook", "org-a"])).value, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("first registration is 201 with a whsec_ secret of 32 bytes; replacing keeps the secret and never shows it again", async () => {
  let t = Date.parse("2026-01-01T00:00:00Z");
  const ctx = await webhookContext({ now: () => t });
  try {
    const token = await ctx.token({ "org-a": ["admin"] });
    let res = await ctx.call("POST", PATH, {
      token,
      body: { orgId: "org-a", notificationWebhook: HOOK },
    });
    const first = await expectJson(res, 201);
    assert.equal(first.statusCode, 201);
    assert.equal(first.success, true);
    assert.equal(typeof first.message, "string");
    const data = first.data as Record<string, string>;
    assert.equal(data.orgId, "org-a");
    assert.equal(data.notificationWebhook, HOOK);
    assert.equal(data.createdAt, "2026-01-01T00:00:00.000Z");
    assert.equal(data.updatedAt, data.createdAt);
    assert.match(data.secret!, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(atob(data.secret!.slice(6)).length, 32);

    t += 60_000;
    res = await ctx.call("POST", PATH, {
      token,
      body: { orgId: "org-a", notificationWebhook: HOOK + "/v2" },
    });
    const second = await expectJson(res, 201);
    const d2 = second.data as Record<string, string>;
    assert.equal("secret" in d2, false);
    assert.equal(d2.notificationWebhook, HOOK + "/v2");
    assert.equal(d2.createdAt, "2026-01-01T00:00:00.000Z");
    assert.equal(d2.updatedAt, "2026-01-01T00:01:00.000Z");

    res = await ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a", { token });
    const view = await expectJson(res, 200);
    assert.equal(view.notificationWebhook, HOOK + "/v2");
    assert.equal(view.enabled, true);
    assert.equal(JSON.stringify(view).includes("whsec_"), false);
    assert.equal(JSON.stringify(view).includes(data.secret!.slice(6)), false);
  } finally {
    await ctx.close();
  }
});

Deno.test("GET and DELETE of the endpoint: 404 when none, 204 on delete, and a new secret after re-registering", async () => {
  const ctx = await webhookContext();
  try {
    const token = await ctx.token({ "org-a": ["owner"] });
    const get = () => ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a", { token });
    await expectJson(await get(), 404);
    const first = await register(ctx, "org-a", HOOK);
    await expectJson(await get(), 200);
    const member = await ctx.token({ "org-a": ["member"] });
    await expectJson(
      await ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a", { token: member }),
      403,
    );
    await expectJson(await ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a"), 401);
    await expectJson(
      await ctx.call("GET", "/notification/webhook-endpoint?orgId=bad%20id", { token }),
      400,
    );
    await expectJson(
      await ctx.call("DELETE", "/notification/webhook-endpoint?orgId=org-a", { token: member }),
      403,
    );
    const del = await ctx.call("DELETE", "/notification/webhook-endpoint?orgId=org-a", { token });
    assert.equal(del.status, 204);
    assert.equal(await del.text(), "");
    await expectJson(await get(), 404);
    await expectJson(
      await ctx.call("DELETE", "/notification/webhook-endpoint?orgId=org-a", { token }),
      404,
    );
    const again = await register(ctx, "org-a", HOOK);
    assert.ok(first && again && first !== again);
  } finally {
    await ctx.close();
  }
});

Deno.test("test event: 202 with an event id, 404 without an endpoint, 403 for a member", async () => {
  const ctx = await webhookContext();
  const rx = receiver();
  try {
    const token = await ctx.token({ "org-a": ["owner"] });
    const send = (tk: string) =>
      ctx.call("POST", "/notification/webhook-endpoint/test", {
        token: tk,
        body: { orgId: "org-a" },
      });
    await expectJson(await send(token), 404);
    await register(ctx, "org-a", rx.hook);
    await expectJson(await send(await ctx.token({ "org-a": ["holder"] })), 403);
    const body = await expectJson(await send(token), 202);
    const eventId = (body.data as { eventId: string }).eventId;
    assert.match(eventId, /^evt_[0-9a-f]{32}$/);
    await ctx.services.dispatcher.runOnce();
    assert.equal(rx.got.length, 1);
    const event = JSON.parse(rx.got[0]!.body);
    assert.equal(event.id, eventId);
    assert.equal(event.type, "webhook.test");
    assert.equal(event.orgId, "org-a");
    assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  } finally {
    await rx.close();
    await ctx.close();
  }
});
