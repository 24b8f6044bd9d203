/**
 * `AUTH_ALGORITHMS` pins the algorithms a bearer token may use (CONTRACT "Authentication and
 * authorization"): a token correctly signed by the identity provider's key, but with an algorithm
 * the setting leaves out, is 401 invalid_token, as a token of a disallowed algorithm must be even
 * when its signature verifies.
 */
import assert from "node:assert/strict";
import { createIdp, createTestContext, expectJson, signToken } from "../support/context.ts";

Deno.test("AUTH_ALGORITHMS: a validly signed token of an algorithm the setting leaves out is 401 invalid_token", async () => {
  const idp = await createIdp("ES256");
  const token = await signToken(idp);
  for (const [algorithms, status] of [["RS256,EdDSA", 401], ["ES256", 200]] as const) {
    const ctx = await createTestContext({ idp, env: { AUTH_ALGORITHMS: algorithms } });
    try {
      const res = await ctx.call("GET", "/me", { token });
      const body = await expectJson(res, status);
      if (status === 401) {
        assert.equal(res.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
        assert.equal(typeof body.message, "string");
      } else assert.equal(body.sub, "user-1");
    } finally {
      await ctx.close();
    }
  }
});
