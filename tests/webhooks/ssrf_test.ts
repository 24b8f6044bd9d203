import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import { emit } from "../../src/webhooks/mod.ts";
import { adminToken, receiver, register, webhookContext } from "./helpers.ts";

const STRICT = { OUTBOUND_ALLOW_PRIVATE: "false", OUTBOUND_REQUIRE_HTTPS: "false" };

/** Blocked targets (by address and through a host name) and the range the message must name. */
function targets(port: number): [string, RegExp][] {
  return [
    [`http://127.0.0.1:${port}/hook`, /loopback address \(127\.0\.0\.1\)/],
    [`http://[::1]:${port}/hook`, /loopback address \(::1\)/],
    ["http://10.0.0.1/hook", /private address \(10\.0\.0\.1\)/],
    ["http://192.168.1.20/hook", /private address/],
    [
      "http://169.254.169.254/latest/meta-data/",
      /link-local \(cloud metadata\) address \(169\.254\.169\.254\)/,
    ],
    [`http://[::ffff:127.0.0.1]:${port}/hook`, /IPv4-mapped loopback address/],
    [`http://localhost:${port}/hook`, /"localhost" resolves to a loopback address/],
  ];
}

Deno.test("registration refuses loopback, private, link-local/metadata and IPv4-mapped targets, directly and via a host name", async () => {
  const ctx = await webhookContext({ env: STRICT });
  try {
    const token = await ctx.token({ "org-a": ["owner"] });
    for (const [url, why] of targets(8080)) {
      const res = await ctx.call("POST", "/notification/register/webhook-endpoint", {
        token,
        body: { orgId: "org-a", notificationWebhook: url },
      });
      const body = await expectJson(res, 400);
      assert.match(String(body.message), why, url);
    }
    assert.equal((await ctx.kv.get(["webhook", "org-a"])).value, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("with OUTBOUND_ALLOW_PRIVATE=true loopback targets register, directly and via localhost", async () => {
  const ctx = await webhookContext(); // the test context allows private addresses
  try {
    await register(ctx, "org-a", "http://127.0.0.1:9/hook");
    await register(ctx, "org-b", "http://localhost:9/hook");
    await register(ctx, "org-c", "http://10.0.0.1/hook");
  } finally {
    await ctx.close();
  }
});

Deno.test("delivery re-checks the target at every attempt: blocked targets get no request, the attempt says why", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const rx = receiver();
  const list = targets(rx.port);
  // One SECRETS_KEY for the three contexts on the one KV file.
  const SECRETS_KEY = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  try {
    // Registered while the policy allowed private targets (or while the name resolved elsewhere).
    const open = await webhookContext({ kvPath, env: { SECRETS_KEY } });
    try {
      for (const [i, [url]] of list.entries()) await register(open, `org-${i}`, url);
    } finally {
      await open.close();
    }
    const strict = await webhookContext({ kvPath, env: { ...STRICT, SECRETS_KEY } });
    try {
      const op = strict.kv.atomic();
      for (const i of list.keys()) emit(op, `org-${i}`, "webhook.test", { i });
      assert.ok((await op.commit()).ok);
      assert.equal(await strict.services.dispatcher.runOnce(), list.length);
      assert.equal(rx.got.length, 0, "no request reached the receiver");
      for (const [i, [url, why]] of list.entries()) {
        const token = await adminToken(strict, { [`org-${i}`]: ["owner"] });
        const page = await expectJson(
          await strict.call("GET", `/notification/deliveries?orgId=org-${i}`, { token }),
          200,
        );
        const d = (page.data as { status: string; attempts: { error?: string }[] }[])[0]!;
        assert.equal(d.status, "failed", url);
        assert.match(d.attempts[0]!.error!, why, `${url}: ${d.attempts[0]!.error}`);
      }
    } finally {
      await strict.close();
    }
    // The same stored deliveries go through once private targets are allowed again.
    const again = await webhookContext({
      kvPath,
      env: { SECRETS_KEY },
      handler: { timeoutMs: 2000 },
      now: () => Date.now() + 10_000,
    });
    try {
      await again.services.dispatcher.runOnce();
      const ids = rx.got.map((g) => JSON.parse(g.body).orgId).sort();
      // 127.0.0.1 and localhost reach the receiver (others may or may not be routable here).
      assert.ok(ids.includes("org-0"), JSON.stringify(ids));
      assert.ok(ids.includes("org-6"), JSON.stringify(ids));
    } finally {
      await again.close();
    }
  } finally {
    await rx.close();
    await Deno.remove(dir, { recursive: true });
  }
});
