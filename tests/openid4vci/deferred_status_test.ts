/**
 * A credential that arrives by deferred issuance is judged like one issued at once (CONTRACT
 * "Credentials from real issuers"): verified, then its status read; revoked → the offer is
 * `failed` naming it and nothing is stored; valid → `done`, stored with its status. Two offers in
 * state `deferred` (written with the holder's own store functions, as accept leaves them) are
 * polled by the service's own dispatcher and deferred handler at a real local HTTP server that
 * plays the issuer's deferred credential endpoint and its Token Status List host; the credentials
 * are SD-JWT VCs signed by a did:key issuer the test makes, bound to the org's key. (The whole
 * flow with a real Credo issuer is `tests/interop/oid4vc_issuance_test.ts`.)
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { configureAgent } from "../didcomm/helpers.ts";
import { orgDid } from "../openid4vp/stored_credentials.ts";
import { testIssuer, tokenListJwt } from "../status/lists.ts";
import { createTestContext, expectJson, serveLocal } from "../support/context.ts";
import { DEFERRED_ACCESS_TOKEN, storeDeferredOffer } from "./deferred_offer.ts";

const ORG = "org-deferred";
const VCT = "https://example.org/vct/deferred";
type Json = Record<string, unknown>;

Deno.test("OID4VCI deferred: a revoked credential arriving by a deferred poll fails the offer and is not stored; a valid one is", async () => {
  const issuer = await testIssuer();
  const credentials = new Map<string, string>(); // transaction id → SD-JWT VC
  let listJwt = "";
  const host = serveLocal(async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/lists/1") {
      return new Response(listJwt, { headers: { "content-type": "application/statuslist+jwt" } });
    }
    if (path === "/deferred" && req.method === "POST") {
      if (req.headers.get("authorization") !== `Bearer ${DEFERRED_ACCESS_TOKEN}`) {
        return Response.json({ error: "invalid_token" }, { status: 401 });
      }
      const { transaction_id } = await req.json() as { transaction_id: string };
      const credential = credentials.get(transaction_id);
      return credential
        ? Response.json({ credentials: [{ credential }] })
        : Response.json({ error: "invalid_transaction_id" }, { status: 400 });
    }
    return new Response("not found", { status: 404 });
  });
  const ctx = await createTestContext();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    const { kid } = await orgDid(ctx, ORG);
    const uri = `${host.url}/lists/1`;
    listJwt = await tokenListJwt({ uri, statuses: { 1: 1 }, signer: issuer });
    const sdJwt = async (idx: number) =>
      `${await new jose.SignJWT({
        iss: issuer.did,
        vct: VCT,
        iat: Math.floor(Date.now() / 1000),
        cnf: { kid },
        status: { status_list: { idx, uri } },
      }).setProtectedHeader({ alg: "EdDSA", typ: "dc+sd-jwt", kid: issuer.kid })
        .sign(issuer.jwtKey)}~`;

    const deferredOffer = (transactionId: string) =>
      storeDeferredOffer(ctx, ORG, { issuer: host.url, transactionId, vct: VCT });
    credentials.set("tx-valid", await sdJwt(0));
    credentials.set("tx-revoked", await sdJwt(1));
    const valid = await deferredOffer("tx-valid");
    const revoked = await deferredOffer("tx-revoked");
    while (await ctx.services.dispatcher.runOnce() > 0) { /* every due poll */ }

    const token = await ctx.token({ [ORG]: ["holder"] });
    const offer = async (id: string) =>
      await expectJson(
        await ctx.call("GET", `/orgs/${ORG}/openid4vc/offers/${id}`, { token }),
        200,
      );
    const refused = await offer(revoked);
    assert.equal(refused.state, "failed");
    assert.match(String(refused.errorMessage), /revoked/);
    assert.deepEqual(refused.credentialIds, []);
    const done = await offer(valid);
    assert.equal(done.state, "done", String(done.errorMessage));
    const [credentialId] = done.credentialIds as string[];
    const list = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/sd-jwt-credentials`, { token }),
      200,
    );
    assert.deepEqual((list.data as Json[]).map((c) => c.id), [credentialId]);
    assert.equal(((list.data as Json[])[0]!.status as Json).state, "valid");
  } finally {
    await ctx.close();
    await host.close();
  }
});
