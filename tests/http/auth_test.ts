import assert from "node:assert/strict";
import * as jose from "jose";
import { REFUSING_ORIGIN } from "../support/ports.ts";
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../src/compose.ts";
import { createRouter, requireOrg } from "../../src/http/mod.ts";
import {
  createIdp,
  createTestContext,
  expectJson,
  serveLocal,
  signToken,
  TEST_AUDIENCE,
  TEST_ISSUER,
} from "../support/context.ts";

/**
 * A route under the org prefix, as the features build them: bearer auth and the member check come
 * with the prefix (`app.ts`); this route adds the admin role.
 */
const adminFeature = (_services: Services) => {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/admin-probe",
      middleware: [requireOrg("admin")] as const,
      request: { params: z.object({ orgId: z.string() }) },
      responses: { 200: { description: "ok" } },
    }),
    (c) => c.json({ ok: true }, 200),
  );
  return [r];
};

async function expect401(res: Response, invalid: boolean) {
  const body = await expectJson(res, 401);
  assert.equal(body.statusCode, 401);
  assert.equal(body.error, "Unauthorized");
  assert.equal(typeof body.message, "string");
  assert.equal(
    res.headers.get("www-authenticate"),
    invalid ? 'Bearer error="invalid_token"' : "Bearer",
  );
}

Deno.test("GET /me answers 200 with the principal for a valid token", async () => {
  const ctx = await createTestContext();
  try {
    const token = await ctx.token({ "org-a": ["owner"], "org-b": ["holder"] }, "alice");
    const body = await expectJson(await ctx.call("GET", "/me", { token }), 200);
    assert.deepEqual(body, {
      sub: "alice",
      kind: "user",
      orgs: { "org-a": ["owner"], "org-b": ["holder"] },
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("every bad token gets 401 with the right WWW-Authenticate challenge", async () => {
  const rsa = await createIdp("RS256");
  const ctx = await createTestContext({ idp: rsa });
  try {
    await expect401(await ctx.call("GET", "/me"), false);
    await expect401(
      await ctx.call("GET", "/me", { headers: { authorization: "Basic abc" } }),
      false,
    );
    await expect401(await ctx.call("GET", "/me", { token: "not-a-jwt" }), true);
    await expect401(await ctx.call("GET", "/me", { token: "a.b.c" }), true);

    const expired = await signToken(rsa, { expiresIn: Math.floor(Date.now() / 1000) - 120 });
    await expect401(await ctx.call("GET", "/me", { token: expired }), true);

    const other = await createIdp("RS256");
    await expect401(await ctx.call("GET", "/me", { token: await signToken(other) }), true);

    const wrongIss = await signToken(rsa, { iss: "https://evil.example" });
    await expect401(await ctx.call("GET", "/me", { token: wrongIss }), true);
    const wrongAud = await signToken(rsa, { aud: "someone-else" });
    await expect401(await ctx.call("GET", "/me", { token: wrongAud }), true);
    const noSub = await signToken(rsa, { sub: null });
    await expect401(await ctx.call("GET", "/me", { token: noSub }), true);

    // alg "none": an unsigned token with valid claims.
    const claims = {
      iss: TEST_ISSUER,
      aud: TEST_AUDIENCE,
      sub: "x",
      exp: Math.floor(Date.now() / 1000) + 600,
    };
    const enc = (o: unknown) => jose.base64url.encode(JSON.stringify(o));
    const none = `${enc({ alg: "none", typ: "JWT" })}.${enc(claims)}.`;
    await expect401(await ctx.call("GET", "/me", { token: none }), true);

    // HS256 keyed with the RSA public key (the classic key-confusion attack).
    const pem = await jose.exportSPKI(
      await jose.importJWK(rsa.publicJwk, "RS256") as jose.CryptoKey,
    );
    const confused = await new jose.SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(TEST_ISSUER).setAudience(TEST_AUDIENCE).setSubject("x").setExpirationTime("5m")
      .sign(new TextEncoder().encode(pem));
    await expect401(await ctx.call("GET", "/me", { token: confused }), true);

    // And the good one still works.
    await expectJson(await ctx.call("GET", "/me", { token: await signToken(rsa) }), 200);
  } finally {
    await ctx.close();
  }
});

Deno.test("tokens verify through a real JWKS server; 503 when it is down", async () => {
  const idp = await createIdp("ES256");
  const jwks = serveLocal(() => Response.json({ keys: [idp.publicJwk] }));
  const ctx = await createTestContext({ idp, jwksUrl: `${jwks.url}/certs` });
  try {
    await expectJson(await ctx.call("GET", "/me", { token: await signToken(idp) }), 200);
  } finally {
    await ctx.close();
    await jwks.close();
  }
  // The identity provider down: nothing listens at its address.
  const ctx2 = await createTestContext({ idp, jwksUrl: `${REFUSING_ORIGIN}/certs` });
  try {
    const res = await ctx2.call("GET", "/me", { token: await signToken(idp) });
    const body = await expectJson(res, 503);
    assert.equal(body.error, "Service Unavailable");
  } finally {
    await ctx2.close();
  }
});

Deno.test("a valid token without the org role gets 403; the admin gets 200", async () => {
  const ctx = await createTestContext({ extraRoutes: adminFeature });
  try {
    const member = await ctx.token({ "org-a": ["holder"], "org-b": ["owner"] });
    const body = await expectJson(
      await ctx.call("GET", "/orgs/org-a/admin-probe", { token: member }),
      403,
    );
    assert.deepEqual(Object.keys(body).sort(), ["error", "message", "statusCode"]);
    assert.equal(body.error, "Forbidden");
    const admin = await ctx.token({ "org-a": ["admin"] });
    await expectJson(await ctx.call("GET", "/orgs/org-a/admin-probe", { token: admin }), 200);
    await expect401(await ctx.call("GET", "/orgs/org-a/admin-probe"), false);
  } finally {
    await ctx.close();
  }
});

Deno.test("a cached token's signature on another payload is refused, and the cached token still holds", async () => {
  const ctx = await createTestContext();
  try {
    const token = await ctx.token({ "org-a": ["holder"] }, "alice");
    await expectJson(await ctx.call("GET", "/me", { token }), 200);
    assert.ok(ctx.services.verifier.peek(token), "the verified token is cached");
    // The same signature on a changed payload must not be taken for the cached token.
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload!)));
    claims.sub = "mallory";
    claims.resource_access = { "org-a": { roles: ["owner"] } };
    const forged = `${header}.${jose.base64url.encode(JSON.stringify(claims))}.${signature}`;
    assert.equal(ctx.services.verifier.peek(forged), undefined);
    await expect401(await ctx.call("GET", "/me", { token: forged }), true);
    const body = await expectJson(
      await ctx.call("GET", "/dids/did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", {
        token: forged,
      }),
      401,
    );
    assert.equal(body.statusCode, 401);
    const me = await expectJson(await ctx.call("GET", "/me", { token }), 200);
    assert.equal(me.sub, "alice");
    assert.ok(ctx.services.verifier.peek(token), "the refused token did not evict the cached one");
  } finally {
    await ctx.close();
  }
});
