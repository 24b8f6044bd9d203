/**
 * Bearer auth is attached once per path prefix (`app.ts`): every operation the OpenAPI document
 * secures refuses a request without a token with 401 and the RFC 6750 challenge, before it looks
 * at the request; the public ones do not ask for one. The bearer header is read one way
 * (`src/http/bearer.ts`), for the middleware and the DID routes alike.
 */
import assert from "node:assert/strict";
import { bearerToken, requireBearer } from "../../src/http/bearer.ts";
import { bearerAuth, type TokenVerifier } from "../../src/http/mod.ts";
import { createTestContext, expectJson } from "../support/context.ts";

const UUID = "0190a8c4-7f3e-7a1b-9c2d-3e4f5a6b7c8d";
const DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

type Doc = { paths: Record<string, Record<string, { security?: unknown[] }>> };

function concrete(template: string): string {
  return template.replace("{orgId}", "org-a").replace("{did}", DID).replace("{identifier}", DID)
    .replaceAll(/\{[^}]+\}/g, UUID);
}

Deno.test("every secured operation of the OpenAPI document is 401 with a Bearer challenge without a token, whatever the body", async () => {
  const ctx = await createTestContext();
  try {
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200) as unknown as Doc;
    const secured: string[] = [];
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (Array.isArray(op.security) && op.security.length === 0) continue;
        const path = concrete(template);
        secured.push(`${method.toUpperCase()} ${template}`);
        const send = method === "get" || method === "delete" ? undefined : { not: "valid" };
        const none: Record<string, string>[] = [{}, { authorization: "Basic dXNlcjpwdw==" }];
        for (const headers of none) {
          const res = await ctx.call(method.toUpperCase(), path, { body: send, headers });
          const body = await expectJson(res, 401);
          assert.equal(body.statusCode, 401, `${method} ${path}`);
          assert.equal(res.headers.get("www-authenticate"), "Bearer", `${method} ${path}`);
        }
        const bad = await ctx.call(method.toUpperCase(), path, { body: send, token: "a.b.c" });
        await expectJson(bad, 401);
        assert.equal(bad.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
      }
    }
    // The document covers every feature's routes (so this test meets each prefix).
    for (const prefix of ["/me", "/orgs/", "/credentials/", "/didcomm/credentials/", "/proofs/"]) {
      assert.ok(secured.some((s) => s.split(" ")[1]!.startsWith(prefix)), prefix);
    }
    assert.ok(secured.some((s) => s.includes("/notification/")));
    assert.ok(secured.length >= 45, `${secured.length} secured operations`);
  } finally {
    await ctx.close();
  }
});

Deno.test("the public routes answer without a token", async () => {
  const ctx = await createTestContext();
  try {
    for (const path of ["/health", "/health/ready", "/openapi.json", "/docs", "/"]) {
      const res = await ctx.call("GET", path);
      await res.body?.cancel();
      assert.equal(res.status, 200, path);
    }
    // DIDComm authenticates by its envelope; the agent token route by an agent API key.
    const didcomm = await ctx.call("POST", "/didcomm", {
      body: "{}",
      headers: { "content-type": "application/didcomm-envelope-enc" },
    });
    assert.equal((await expectJson(didcomm, 400)).statusCode, 400);
    const token = await ctx.call("POST", "/agent/token");
    await expectJson(token, 401);
    assert.match(token.headers.get("www-authenticate") ?? "", /^ApiKey /);
  } finally {
    await ctx.close();
  }
});

Deno.test("org routes check the role in the org of their path: 400 malformed org, 403 non-member, admin routes owner/admin only", async () => {
  const ctx = await createTestContext();
  try {
    const holder = await ctx.token({ "org-a": ["holder"] });
    await expectJson(await ctx.call("GET", "/orgs/org-a/connections", { token: holder }), 200);
    await expectJson(await ctx.call("GET", "/orgs/org-b/connections", { token: holder }), 403);
    await expectJson(await ctx.call("GET", "/orgs/-bad/connections", { token: holder }), 400);
    await expectJson(await ctx.call("GET", "/orgs/org-a/agents", { token: holder }), 403);
    const admin = await ctx.token({ "org-a": ["admin"] });
    await expectJson(await ctx.call("GET", "/orgs/org-a/agents", { token: admin }), 404);
    await expectJson(await ctx.call("GET", "/orgs/org-a/proofs", { token: admin }), 200);
  } finally {
    await ctx.close();
  }
});

Deno.test("bearerAuth checks its options once, when it is made", () => {
  assert.throws(() => bearerAuth({} as { verifier: TokenVerifier }), /token verifier/);
  assert.throws(() => bearerAuth(undefined as unknown as { verifier: TokenVerifier }), TypeError);
});

Deno.test("one reading of the Bearer header: the fast form and the general one agree", () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ["", undefined],
    ["Bearer", undefined],
    ["Bearer ", undefined],
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER  abc ", "abc"],
    ["Bearer a b", undefined],
    ["Basic abc", undefined],
    ["Bearerabc", undefined],
  ];
  for (const [header, token] of cases) assert.equal(bearerToken(header), token, String(header));
  assert.equal(requireBearer("Bearer t"), "t");
  assert.throws(() => requireBearer(undefined), (e: { headers?: Record<string, string> }) => {
    return e.headers?.["www-authenticate"] === "Bearer";
  });
  assert.throws(() => requireBearer("Bearer "), (e: { headers?: Record<string, string> }) => {
    return e.headers?.["www-authenticate"] === 'Bearer error="invalid_token"';
  });
});
