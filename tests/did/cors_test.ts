/**
 * CORS of the resolution routes (CONTRACT "DID resolution"): `/dids/…` and `/1.0/…` answer any
 * origin (`Access-Control-Allow-Origin: *`, never credentials), errors included, and a preflight
 * answers 204 allowing `GET`, `Authorization` and `Accept` without a token. Other routes are not
 * opened by this. A real browser on another origin: tests/web/cross_origin_test.ts.
 */
import assert from "node:assert/strict";
import { createTestContext } from "../support/context.ts";
import { didHost, json, webDoc } from "./did_host.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const ORIGIN = { origin: "https://wallet.example" };

Deno.test("resolution answers to a cross-origin request carry Access-Control-Allow-Origin: * (errors too), never credentials; every answer varies by Origin", async () => {
  const h = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did, { service: [] })) });
  const ctx = await createTestContext();
  try {
    const token = await ctx.token();
    const auth = { ...ORIGIN, authorization: `Bearer ${token}` };
    const cases: [string, Record<string, string>, number][] = [
      [`/dids/${KEY_DID}`, auth, 200],
      [`/dids/${KEY_DID}`, auth, 200], // the prepared (cloned) answer
      [`/dids/${KEY_DID}`, { ...auth, accept: "application/did+json" }, 200],
      [`/1.0/identifiers/${KEY_DID}`, auth, 200],
      [`/dids/${h.did}`, auth, 200],
      [`/dids/did:key:zBROKEN`, auth, 400],
      [`/dids/${KEY_DID}`, { ...auth, accept: "text/html" }, 406],
      [`/dids/${KEY_DID}%23nope`, auth, 404],
      [`/dids/${h.did}?service=x&relativeRef=/a`, auth, 404],
      [`/1.0/methods`, auth, 200],
      [`/1.0/properties`, auth, 200],
      [`/dids/${KEY_DID}`, ORIGIN, 401],
      [`/1.0/methods`, { ...ORIGIN, authorization: "Bearer not.a.jwt" }, 401],
    ];
    for (const [path, headers, status] of cases) {
      const res = await ctx.app.request(path, { headers });
      assert.equal(res.status, status, `${path}: ${await res.clone().text()}`);
      assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
      assert.equal(res.headers.get("access-control-allow-credentials"), null, path);
      await res.body?.cancel();
    }
    // Without Origin (a wallet that is not a browser) no CORS header, warm or cold, and the
    // answer says it varies by Origin, so that no shared cache hands it to a browser.
    for (const path of [`/dids/${KEY_DID}`, `/dids/${KEY_DID}`, `/dids/${h.did}`]) {
      const res = await ctx.app.request(path, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("access-control-allow-origin"), null, path);
      assert.match(res.headers.get("vary") ?? "", /\bOrigin\b/, path);
      await res.body?.cancel();
    }
    // With Origin after a warm answer without it: the prepared answer is not changed for others.
    const again = await ctx.app.request(`/dids/${KEY_DID}`, { headers: auth });
    assert.equal(again.headers.get("access-control-allow-origin"), "*");
    await again.body?.cancel();
    const plain = await ctx.app.request(`/dids/${KEY_DID}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(plain.headers.get("access-control-allow-origin"), null);
    await plain.body?.cancel();
  } finally {
    await ctx.close();
    await h.close();
  }
});

Deno.test("a preflight of a resolution route is 204 allowing GET, Authorization and Accept, with no token", async () => {
  const ctx = await createTestContext();
  try {
    for (
      const path of [
        `/dids/${KEY_DID}`,
        `/dids/${encodeURIComponent(KEY_DID)}`,
        `/1.0/identifiers/${KEY_DID}%23z6Mk`,
        "/1.0/methods",
        "/1.0/testIdentifiers",
        "/1.0/traits",
        "/1.0/properties",
      ]
    ) {
      const res = await ctx.app.request(path, {
        method: "OPTIONS",
        headers: {
          ...ORIGIN,
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization, accept",
        },
      });
      assert.equal(res.status, 204, path);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
      assert.deepEqual(methods(res.headers.get("access-control-allow-methods")), ["GET"]);
      assert.deepEqual(
        methods(res.headers.get("access-control-allow-headers")),
        ["ACCEPT", "AUTHORIZATION"],
      );
      assert.equal(await res.text(), "");
    }
    // Other routes are not opened by the resolution routes' rule.
    const me = await ctx.app.request("/me", {
      method: "OPTIONS",
      headers: { ...ORIGIN, "access-control-request-method": "GET" },
    });
    assert.notEqual(me.headers.get("access-control-allow-origin"), "*");
    await me.body?.cancel();
  } finally {
    await ctx.close();
  }
});

function methods(list: string | null): string[] {
  return (list ?? "").split(",").map((s) => s.trim().toUpperCase()).filter(Boolean).sort();
}
