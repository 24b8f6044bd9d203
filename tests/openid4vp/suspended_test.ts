/**
 * A revoked or suspended credential is never offered as a match for an OpenID4VP request
 * (CONTRACT "Credentials from real issuers"), whether the status was recorded earlier or is read
 * now from the issuer's Token Status List (a real local host, the list signed by the credential's
 * issuer): only the valid credential is a match, and accepting sends only it.
 */
import assert from "node:assert/strict";
import { configureAgent } from "../didcomm/helpers.ts";
import { listHost, type TestIssuer, tokenListJwt } from "../status/lists.ts";
import { createTestContext, expectJson } from "../support/context.ts";
import { startLocalVerifier } from "./local_verifier.ts";
import { sdJwtIssuer, storeSdJwt } from "./stored_credentials.ts";

const ORG = "org-sus";

Deno.test("OID4VP: suspended and revoked credentials (recorded, or read from the status list now) are never offered; the valid one is", async () => {
  const ctx = await createTestContext();
  const verifier = await startLocalVerifier();
  const host = listHost();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    const uri = host.url("/lists/1");
    host.serveJwt(
      "/lists/1",
      await tokenListJwt({ uri, statuses: { 1: 1, 2: 2 }, signer: sdJwtIssuer as TestIssuer }),
    );
    const withStatus = (idx: number) =>
      storeSdJwt(ctx, ORG, { given_name: `Erika ${idx}`, status: { status_list: { idx, uri } } }, {
        frame: { _sd: ["given_name"] },
      });
    const valid = await withStatus(0);
    await withStatus(1); // revoked on the list
    await withStatus(2); // suspended on the list
    await storeSdJwt(ctx, ORG, { given_name: "Recorded suspended" }, {
      status: { state: "suspended" },
    });
    await storeSdJwt(ctx, ORG, { given_name: "Recorded revoked" }, {
      status: { state: "revoked" },
    });
    const token = await ctx.token({ [ORG]: ["holder"] });
    const req = await verifier.request();
    const rec = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
        token,
        body: { request: req.link },
      }),
      201,
    );
    const [query] = rec.queries as { matches: { credentialId: string }[] }[];
    assert.deepEqual(query!.matches.map((m) => m.credentialId), [valid]);
    assert.ok(host.hits() >= 1, "the list was read");
    const done = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${rec.id}/accept`, { token }),
      200,
    );
    assert.equal(done.state, "done");
    assert.deepEqual(done.presented, [{ queryId: "pid", credentialId: valid }]);
    assert.equal(verifier.received(req.id).length, 1);
  } finally {
    await host.close();
    await verifier.close();
    await ctx.close();
  }
});
