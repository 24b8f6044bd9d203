/**
 * A JSON-LD credential whose vocabulary is a context the service does not bundle but keeps
 * (`JSONLD_CONTEXT_ALLOW`, fetched once from a real local HTTP server): it answers DCQL
 * `type_values` written as expanded IRIs (as Credo writes them), and its presentation is signed and
 * verifies, as it does for a credential on the bundled contexts.
 */
import assert from "node:assert/strict";
import { createDocumentLoader } from "../../src/credentials/mod.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson } from "../support/context.ts";
import { assertVpVerifies, startLocalVerifier } from "./local_verifier.ts";
import { orgDid, storeW3c } from "./stored_credentials.ts";

const ORG = "org-vp-contexts";
type Json = Record<string, unknown>;
const CONTEXT = {
  "@context": {
    nickname: "https://example.org/vocab#nickname",
    NicknameCredential: "https://example.org/vocab#NicknameCredential",
  },
};

Deno.test("OID4VP ldp_vc: a credential on a context kept under JSONLD_CONTEXT_ALLOW matches expanded type_values and is presented in a VP that verifies", async () => {
  const contextServer = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () => Response.json(CONTEXT, { headers: { "content-type": "application/ld+json" } }),
  );
  const contextUrl = `http://127.0.0.1:${contextServer.addr.port}/ctx/nickname/v1`;
  const contexts = new Map([[contextUrl, CONTEXT]]);
  const ctx = await createTestContext({
    env: { JSONLD_CONTEXT_ALLOW: `http://127.0.0.1:${contextServer.addr.port}/ctx/` },
  });
  const verifier = await startLocalVerifier();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    const token = await ctx.token({ [ORG]: ["member"] });
    const id = await storeW3c(ctx, ORG, { nickname: "Riki" }, {
      context: contextUrl,
      type: "NicknameCredential",
      documentLoader: createDocumentLoader({ contexts }),
    });
    const req = await verifier.request({
      signer: "did",
      dcql: {
        credentials: [{
          id: "nick",
          format: "ldp_vc",
          meta: { type_values: [["https://example.org/vocab#NicknameCredential"]] },
          claims: [{ path: ["credentialSubject", "nickname"] }],
        }],
      },
    });
    const rec = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
        token,
        body: { request: req.link },
      }),
      201,
    );
    const matches = (rec.queries as { matches: Json[] }[])[0]!.matches;
    assert.deepEqual(matches.map((m) => m.credentialId), [id], "matched by its expanded type");
    const done = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${rec.id}/accept`, { token }),
      200,
    );
    assert.equal(done.state, "done", String(done.errorMessage));
    const vp = (JSON.parse(verifier.received(req.id)[0]!.form.vp_token!) as Record<string, Json[]>)
      .nick![0]!;
    assert.equal(vp.holder, (await orgDid(ctx, ORG)).did);
    await assertVpVerifies(vp, {
      challenge: req.nonce,
      domain: req.clientId,
      resolveDid: async (d) => (await ctx.services.resolver.resolve(d)).didDocument as never,
      contexts,
    });
  } finally {
    await verifier.close();
    await ctx.close();
    await contextServer.shutdown();
  }
});
