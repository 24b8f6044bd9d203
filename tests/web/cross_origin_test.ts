/**
 * A web wallet on another origin resolves with its own token in a real headless Chromium: the
 * browser's preflight and CORS checks of `/dids/…` and `/1.0/…` (CONTRACT "DID resolution").
 * Skipped with the reason printed where Chromium is not installed, except under `CI=true`.
 */
import assert from "node:assert/strict";
import { ignore, launch } from "./browser.ts";
import { createTestContext, serveLocal } from "../support/context.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

Deno.test({
  name:
    "a page on another origin resolves with a bearer token and reads a 401 (preflight and CORS)",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const ctx = await createTestContext();
    const service = serveLocal((req) => ctx.app.fetch(req));
    // The wallet: another origin (localhost, another port) serving an empty page.
    const wallet = serveLocal(() =>
      new Response("<!doctype html><title>wallet</title>", {
        headers: { "content-type": "text/html" },
      })
    );
    const { browser, close } = await launch();
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${wallet.port}/`);
      const token = await ctx.token();
      const call = (path: string, headers: Record<string, string>) =>
        page.evaluate(
          async (url: string, h: Record<string, string>) => {
            try {
              const res = await fetch(url, { headers: h });
              return { status: res.status, body: await res.text() };
            } catch (err) {
              return { status: 0, body: String(err) };
            }
          },
          `${service.url}${path}`,
          headers,
        );

      const doc = await call(`/dids/${KEY_DID}`, {
        authorization: `Bearer ${token}`,
        accept: "application/did+json",
      });
      assert.equal(doc.status, 200, doc.body);
      assert.equal(JSON.parse(doc.body).id, KEY_DID);
      const methods = await call("/1.0/methods", { authorization: `Bearer ${token}` });
      assert.equal(methods.status, 200, methods.body);
      assert.ok(JSON.parse(methods.body).includes("key"));
      // An error is readable too: the wallet learns its token was refused.
      const refused = await call(`/1.0/identifiers/${KEY_DID}`, { authorization: "Bearer x.y.z" });
      assert.equal(refused.status, 401, refused.body);
      // A route outside the resolution routes stays closed to this origin.
      const me = await call("/me", { authorization: `Bearer ${token}` });
      assert.equal(me.status, 0, me.body);
    } finally {
      await close();
      await wallet.close();
      await service.close();
      await ctx.close();
    }
  },
});
