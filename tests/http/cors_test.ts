/**
 * CORS_ORIGINS (CONTRACT env table and "DID resolution"): pages on the configured origins may call
 * the API with their token; other origins get no CORS answer; DID resolution is left to its own
 * routes. Checked on the headers, and in a real browser (Chromium) on two page origins.
 */
import assert from "node:assert/strict";
import { createTestContext, expectJson } from "../support/context.ts";
import { ignore, launch, type Win } from "../web/browser.ts";

const WALLET = "https://wallet.example";
const DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

const preflight = (origin: string, method = "GET", headers = "authorization") => ({
  origin,
  "access-control-request-method": method,
  "access-control-request-headers": headers,
});

Deno.test("a preflight from a CORS_ORIGINS origin is 204 allowing the API's methods, the token and JSON, without credentials mode", async () => {
  const ctx = await createTestContext({
    env: { CORS_ORIGINS: `${WALLET}, http://localhost:5173` },
  });
  try {
    const res = await ctx.call("OPTIONS", "/orgs/org-a/connections", {
      headers: preflight(WALLET, "POST", "authorization,content-type"),
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), WALLET);
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /\bPOST\b/);
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /\bDELETE\b/);
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /\bAuthorization\b/i);
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /\bContent-Type\b/i);
    assert.equal(res.headers.get("access-control-max-age"), "600");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    assert.match(res.headers.get("vary") ?? "", /Origin/);
    const other = await ctx.call("OPTIONS", "/me", { headers: preflight("http://localhost:5173") });
    assert.equal(other.status, 204);
    assert.equal(other.headers.get("access-control-allow-origin"), "http://localhost:5173");
  } finally {
    await ctx.close();
  }
});

Deno.test("answers to an allowed origin carry its CORS headers, errors too (the page can read a 401 and its challenge)", async () => {
  const ctx = await createTestContext({ env: { CORS_ORIGINS: WALLET } });
  try {
    const token = await ctx.token({ "org-a": ["owner"] });
    const ok = await ctx.call("GET", "/me", { token, headers: { origin: WALLET } });
    await expectJson(ok, 200);
    assert.equal(ok.headers.get("access-control-allow-origin"), WALLET);
    assert.match(ok.headers.get("access-control-expose-headers") ?? "", /X-Request-Id/i);
    assert.match(ok.headers.get("vary") ?? "", /Origin/);
    const denied = await ctx.call("GET", "/me", { headers: { origin: WALLET } });
    await expectJson(denied, 401);
    assert.equal(denied.headers.get("access-control-allow-origin"), WALLET);
    assert.match(denied.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/i);
  } finally {
    await ctx.close();
  }
});

Deno.test("another origin gets no CORS answer: no Access-Control-Allow-Origin, a preflight is not answered", async () => {
  const envs: Record<string, string>[] = [{ CORS_ORIGINS: WALLET }, {}];
  for (const env of envs) {
    const ctx = await createTestContext({ env });
    try {
      const token = await ctx.token({ "org-a": ["owner"] });
      const res = await ctx.call("GET", "/me", {
        token,
        headers: { origin: "https://evil.example" },
      });
      await expectJson(res, 200);
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      for (const path of ["/me", "/orgs/org-a/connections", "/health"]) {
        const pre = await ctx.call("OPTIONS", path, { headers: preflight("https://evil.example") });
        await pre.body?.cancel();
        assert.ok(pre.status >= 400, `${path}: ${pre.status}`);
        assert.equal(pre.headers.get("access-control-allow-origin"), null);
      }
      // Without CORS_ORIGINS not even the origin that would be allowed gets one.
      const wallet = await ctx.call("GET", "/me", { token, headers: { origin: WALLET } });
      await wallet.body?.cancel();
      const want = "CORS_ORIGINS" in env ? WALLET : null;
      assert.equal(wallet.headers.get("access-control-allow-origin"), want);
    } finally {
      await ctx.close();
    }
  }
});

Deno.test("the DID resolution routes are left to their own CORS answer", async () => {
  const ctx = await createTestContext({ env: { CORS_ORIGINS: WALLET } });
  try {
    const token = await ctx.token({ "org-a": ["owner"] });
    for (const path of [`/dids/${DID}`, `/1.0/identifiers/${DID}`]) {
      const res = await ctx.call("GET", path, { token, headers: { origin: WALLET } });
      await res.body?.cancel();
      assert.equal(res.status, 200);
      // Any origin there ("*"), never this middleware's echo of the org routes' list.
      assert.notEqual(res.headers.get("access-control-allow-origin"), WALLET, path);
      // What the DID door in front of the router declines reaches the router: still not echoed.
      const post = await ctx.call("POST", path, { token, headers: { origin: WALLET } });
      await post.body?.cancel();
      assert.equal(post.status, 405, path);
      assert.notEqual(post.headers.get("access-control-allow-origin"), WALLET, path);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test({
  name:
    "in Chromium, a page on a CORS_ORIGINS origin calls the API with its token; a page elsewhere cannot read the answer",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const page = (label: string) =>
      Deno.serve(
        { port: 0, hostname: "127.0.0.1", onListen: () => {} },
        () =>
          new Response(`<!doctype html><title>${label}</title>`, {
            headers: { "content-type": "text/html" },
          }),
      );
    const allowedPage = page("wallet");
    const otherPage = page("elsewhere");
    const allowed = `http://127.0.0.1:${allowedPage.addr.port}`;
    const ctx = await createTestContext({ env: { CORS_ORIGINS: allowed } });
    const api = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req) => ctx.app.fetch(req),
    );
    const base = `http://127.0.0.1:${api.addr.port}`;
    const { browser, close } = await launch();
    try {
      const token = await ctx.token({ "org-a": ["holder"] }, "wallet-user");
      const call = async (origin: string) => {
        const tab = await browser.newPage();
        await tab.goto(`${origin}/`);
        const out = await tab.evaluate(
          async (url: string, t: string) => {
            const w = globalThis as unknown as Win & {
              fetch: (
                u: string,
                i: unknown,
              ) => Promise<{ status: number; json(): Promise<unknown> }>;
            };
            try {
              const me = await w.fetch(`${url}/me`, { headers: { authorization: `Bearer ${t}` } });
              const list = await w.fetch(`${url}/orgs/org-a/connections`, {
                headers: { authorization: `Bearer ${t}`, "x-request-id": "from-the-page" },
              });
              return { me: await me.json(), list: list.status };
            } catch (err) {
              return { error: String(err) };
            }
          },
          base,
          token,
        );
        await tab.close();
        return out;
      };
      const fromWallet = await call(allowed);
      assert.deepEqual(fromWallet, {
        me: { sub: "wallet-user", kind: "user", orgs: { "org-a": ["holder"] } },
        list: 200,
      });
      const fromElsewhere = await call(`http://127.0.0.1:${otherPage.addr.port}`);
      assert.match(String((fromElsewhere as { error?: string }).error), /Failed to fetch/);
    } finally {
      await close();
      await api.shutdown();
      await allowedPage.shutdown();
      await otherPage.shutdown();
      await ctx.close();
    }
  },
});
