import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import { receiver, register, webhookContext } from "./helpers.ts";

const PATH = "/notification/register/webhook-endpoint";
const HOOK = "https://hooks.example.com/ssi";

Deno.test("rotate-secret returns a new secret once and keeps the old one live for 24 h", async () => {
  let t = Date.parse("2026-02-01T00:00:00Z");
  const ctx = await webhookContext({ now: () => t });
  try {
    const token = await ctx.token({ "org-a": ["owner"] });
    const rotate = () =>
      ctx.call("POST", "/notification/webhook-endpoint/rotate-secret", {
        token,
        body: { orgId: "org-a" },
      });
    await expectJson(await rotate(), 404);
    const old = await register(ctx, "org-a", HOOK);
    t += 1000;
    const body = await expectJson(await rotate(), 200);
    const secret = (body.data as { secret: string }).secret;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(secret, old);
    const view = await expectJson(
      await ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a", { token }),
      200,
    );
    assert.equal(view.previousSecretExpiresAt, new Date(t + 24 * 3600_000).toISOString());
    assert.equal(view.secretCreatedAt, new Date(t).toISOString());
    t += 24 * 3600_000 + 1;
    const later = await expectJson(
      await ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a", { token }),
      200,
    );
    assert.equal(later.previousSecretExpiresAt, null);
    const other = await ctx.token({ "org-a": ["verifier"] });
    await expectJson(
      await ctx.call("POST", "/notification/webhook-endpoint/rotate-secret", {
        token: other,
        body: { orgId: "org-a" },
      }),
      403,
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("the secret appears in no later response, no log line and no KV value in clear", async () => {
  const lines: string[] = [];
  const orig = { log: console.log, error: console.error, warn: console.warn };
  const capture = (...a: unknown[]) => lines.push(a.map(String).join(" "));
  const { setLogLevel } = await import("../../src/base/log.ts");
  const ctx = await webhookContext();
  const rx = receiver((_r, n) => new Response(null, { status: n === 1 ? 500 : 200 }));
  console.log = console.error = console.warn = capture;
  setLogLevel("debug");
  const responses: string[] = [];
  const secrets: string[] = [];
  try {
    const token = await ctx.token({ "org-a": ["owner"] });
    const res = await ctx.call("POST", PATH, {
      token,
      body: { orgId: "org-a", notificationWebhook: rx.hook },
    });
    secrets.push(((await expectJson(res, 201)).data as { secret: string }).secret);
    const rot = await ctx.call("POST", "/notification/webhook-endpoint/rotate-secret", {
      token,
      body: { orgId: "org-a" },
    });
    secrets.push(((await expectJson(rot, 200)).data as { secret: string }).secret);
    for (
      const [m, p, b] of [
        ["POST", PATH, { orgId: "org-a", notificationWebhook: rx.hook }],
        ["GET", "/notification/webhook-endpoint?orgId=org-a", undefined],
        ["POST", "/notification/webhook-endpoint/test", { orgId: "org-a" }],
      ] as const
    ) {
      responses.push(await (await ctx.call(m, p, { token, body: b })).text());
    }
    await ctx.services.dispatcher.runOnce(); // fails once (500)
    await ctx.services.dispatcher.runOnce();
    responses.push(
      await (await ctx.call("GET", "/notification/deliveries?orgId=org-a", { token })).text(),
    );
  } finally {
    console.log = orig.log;
    console.error = orig.error;
    console.warn = orig.warn;
    setLogLevel("error");
  }
  try {
    assert.ok(lines.length > 0, "debug logging produced lines");
    const kvDump: string[] = [];
    for await (const e of ctx.kv.list({ prefix: [] })) {
      kvDump.push(JSON.stringify(e.key) + JSON.stringify(e.value));
    }
    assert.ok(kvDump.some((s) => s.startsWith('["webhook","org-a"]')));
    for (const s of secrets) {
      const b64 = s.slice("whsec_".length);
      const b64u = b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
      for (const needle of [b64, b64u, b64.slice(0, 20)]) {
        for (const r of responses) assert.equal(r.includes(needle), false, "response leaks");
        for (const l of lines) assert.equal(l.includes(needle), false, "log leaks");
        for (const k of kvDump) assert.equal(k.includes(needle), false, "KV leaks");
      }
    }
    // The receiver got signed events; it never gets the secret either.
    assert.ok(rx.got.length >= 1);
    for (const g of rx.got) {
      for (const s of secrets) assert.equal(JSON.stringify(g).includes(s.slice(6, 26)), false);
    }
  } finally {
    await rx.close();
    await ctx.close();
  }
});
