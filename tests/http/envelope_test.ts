import assert from "node:assert/strict";
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../src/http/mod.ts";
import { createTestContext, expectJson } from "../support/context.ts";

const probeFeature = () => {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: "post",
      path: "/probe",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({ name: z.string().min(2), count: z.number().int() }).strict(),
            },
          },
        },
      },
      responses: { 200: { description: "ok" } },
    }),
    (c) => c.json(c.req.valid("json"), 200),
  );
  r.get("/boom", () => {
    throw new Error("database password is hunter2 at /srv/app/secret.ts:12");
  });
  return r;
};

Deno.test("validation failures are 400 with details naming each field", async () => {
  const ctx = await createTestContext({ extraRoutes: () => [probeFeature()] });
  try {
    const res = await ctx.call("POST", "/probe", { body: { name: "x", extra: 1 } });
    const body = await expectJson(res, 400);
    assert.equal(body.statusCode, 400);
    assert.equal(body.error, "Bad Request");
    assert.match(String(body.message), /request body is not valid/);
    const details = body.details as { path: string; message: string }[];
    const paths = details.map((d) => d.path);
    assert.ok(paths.includes("name"), JSON.stringify(details));
    assert.ok(paths.includes("count"), JSON.stringify(details));
    assert.ok(details.some((d) => /extra/.test(d.message)), JSON.stringify(details));
    assert.ok(res.headers.get("x-request-id"));

    const ok = await ctx.call("POST", "/probe", { body: { name: "xy", count: 2 } });
    assert.deepEqual(await expectJson(ok, 200), { name: "xy", count: 2 });
  } finally {
    await ctx.close();
  }
});

Deno.test("malformed JSON is 400, a non-JSON content type 415, a body over 1 MiB 413", async () => {
  const ctx = await createTestContext({ extraRoutes: () => [probeFeature()] });
  try {
    const bad = await ctx.call("POST", "/probe", { body: "{nope" });
    assert.match(String((await expectJson(bad, 400)).message), /not valid JSON/);
    const text = await ctx.call("POST", "/probe", {
      body: "name=x",
      headers: { "content-type": "text/plain" },
    });
    const t = await expectJson(text, 415);
    assert.equal(t.error, "Unsupported Media Type");
    assert.ok(text.headers.get("x-request-id"), "refusals carry the request id too");
    // A bare POST (no body, no content type) is not a media type problem: it is a missing body.
    const bare = await ctx.app.request("/probe", { method: "POST" });
    assert.equal((await expectJson(bare, 400)).error, "Bad Request");
    const form = await ctx.app.request("/probe", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode("a=b"));
          c.close();
        },
      }),
    });
    assert.equal((await expectJson(form, 415)).error, "Unsupported Media Type");
    const big = await ctx.call("POST", "/probe", {
      body: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), count: 1 }),
    });
    const b = await expectJson(big, 413);
    assert.equal(b.error, "Payload Too Large");
    assert.ok(big.headers.get("x-request-id"));
  } finally {
    await ctx.close();
  }
});

Deno.test("unknown route is 404, wrong method 405 with Allow, crash 500 without internals", async () => {
  const ctx = await createTestContext({ extraRoutes: () => [probeFeature()] });
  try {
    const nf = await expectJson(await ctx.call("GET", "/does-not-exist"), 404);
    assert.equal(nf.error, "Not Found");
    const res = await ctx.call("DELETE", "/health");
    const m = await expectJson(res, 405);
    assert.equal(m.error, "Method Not Allowed");
    assert.equal(res.headers.get("allow"), "GET");
    const boom = await ctx.call("GET", "/boom");
    const text = JSON.stringify(await expectJson(boom, 500));
    assert.doesNotMatch(text, /hunter2|secret\.ts|srv/);
    assert.match(text, /"error":"Internal Server Error"/);
  } finally {
    await ctx.close();
  }
});

Deno.test("health, readiness, OpenAPI and docs are public; x-request-id is echoed", async () => {
  const ctx = await createTestContext();
  try {
    const h = await ctx.call("GET", "/health", { headers: { "x-request-id": "abc-123" } });
    assert.deepEqual(await expectJson(h, 200), { status: "ok" });
    assert.equal(h.headers.get("x-request-id"), "abc-123");
    const r = await expectJson(await ctx.call("GET", "/health/ready"), 200);
    assert.equal(r.status, "ready");
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200);
    assert.equal(doc.openapi, "3.1.0");
    assert.ok((doc.paths as Record<string, unknown>)["/me"]);
    const page = await ctx.call("GET", "/docs");
    assert.equal(page.status, 200);
    assert.match(await page.text(), /\/docs\/assets\/swagger-ui-bundle\.js/);
    const js = await ctx.call("GET", "/docs/assets/swagger-ui-bundle.js");
    assert.equal(js.status, 200);
    assert.ok((await js.arrayBuffer()).byteLength > 100_000);
  } finally {
    await ctx.close();
  }
});
