/**
 * OpenID4VP with Data Integrity: a verifier whose `client_metadata` takes only `DataIntegrityProof`
 * presentations (`vp_formats_supported.ldp_vc.proof_type_values`, OpenID4VP 1.0 appendix B.1.3)
 * gets a VC 2.0 presentation of a stored `ecdsa-rdfc-2019` credential signed `eddsa-rdfc-2022` by
 * the org's did:key (challenge = nonce, domain = client identifier), which Digital Bazaar's own
 * verifier accepts. One that takes only a cryptosuite the service does not sign gets 409 naming it,
 * nothing is sent, and the request stays open.
 */
import assert from "node:assert/strict";
import { newW3cRecord } from "../../src/credentials/mod.ts";
import { uuidv7 } from "../../src/kv/mod.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import {
  digitalBazaarVerifies,
  ecdsaIssuer,
  signDataIntegrity,
} from "../credentials/jsonld/di_keys.ts";
import { startLocalVerifier } from "./local_verifier.ts";
import { orgDid } from "./stored_credentials.ts";

const ORG = "org-vp-di";
type Json = Record<string, unknown>;

const DCQL = {
  credentials: [{
    id: "member",
    format: "ldp_vc",
    meta: { type_values: [["https://example.org/vocab#MembershipCredential"]] },
    claims: [{ path: ["credentialSubject", "name"] }],
  }],
};

/** Stores a VC 2.0 membership credential about the org's DID, signed ecdsa-rdfc-2019 (P-384). */
async function storeMembership(ctx: TestContext): Promise<string> {
  const issuer = await ecdsaIssuer("P-384");
  const { did } = await orgDid(ctx, ORG);
  const vc = await signDataIntegrity({
    "@context": ["https://www.w3.org/ns/credentials/v2", {
      name: "https://schema.org/name",
      MembershipCredential: "https://example.org/vocab#MembershipCredential",
    }],
    type: ["VerifiableCredential", "MembershipCredential"],
    issuer: issuer.did,
    validFrom: "2025-01-01T00:00:00Z",
    credentialSubject: { id: did, name: "Alice" },
  }, issuer);
  const id = uuidv7(Date.now());
  const op = ctx.kv.atomic();
  const exchange = { id: crypto.randomUUID(), connectionId: "" };
  ctx.services.credentials.add(op, ORG, {
    format: "ldp_vc",
    record: newW3cRecord({ id, credential: vc, exchange, now: Date.now() }),
  });
  await op.commit();
  return id;
}

const metadata = (ldpVc: Json) => ({
  client_metadata: { client_name: "DI Verifier", vp_formats_supported: { ldp_vc: ldpVc } },
});

Deno.test("OID4VP: a verifier taking only DataIntegrityProof gets an eddsa-rdfc-2022 VC 2.0 presentation Digital Bazaar's verifier accepts", async () => {
  const ctx = await createTestContext();
  const verifier = await startLocalVerifier();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    const token = await ctx.token({ [ORG]: ["member"] });
    const id = await storeMembership(ctx);
    const req = await verifier.request({
      dcql: DCQL,
      extra: metadata({
        proof_type_values: ["DataIntegrityProof"],
        cryptosuite_values: ["eddsa-rdfc-2022", "ecdsa-rdfc-2019"],
      }),
    });
    const rec = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
        token,
        body: { request: req.link },
      }),
      201,
    );
    const matches = (rec.queries as { matches: Json[] }[])[0]!.matches;
    assert.deepEqual(matches.map((m) => m.credentialId), [id]);
    const done = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${rec.id}/accept`, { token }),
      200,
    );
    assert.equal(done.state, "done", String(done.errorMessage));
    const vp = (JSON.parse(verifier.received(req.id)[0]!.form.vp_token!) as Record<string, Json[]>)
      .member![0]!;
    const holder = (await orgDid(ctx, ORG)).did;
    assert.equal(vp.holder, holder);
    assert.deepEqual(vp["@context"], ["https://www.w3.org/ns/credentials/v2"]);
    const proof = vp.proof as Json;
    assert.equal(proof.type, "DataIntegrityProof");
    assert.equal(proof.cryptosuite, "eddsa-rdfc-2022");
    assert.equal(proof.challenge, req.nonce);
    assert.equal(proof.domain, req.clientId);
    const resolveDid = async (d: string) =>
      (await ctx.services.resolver.resolve(d)).didDocument as never;
    const verified = await digitalBazaarVerifies(vp, {
      holder,
      challenge: req.nonce,
      domain: req.clientId,
      resolveDid,
    });
    assert.equal(verified.verified, true, JSON.stringify(verified.error));
    const replayed = await digitalBazaarVerifies(vp, {
      holder,
      challenge: "another nonce",
      domain: req.clientId,
      resolveDid,
    });
    assert.equal(replayed.verified, false);
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP: a verifier taking only a cryptosuite this service does not sign is 409 naming it; nothing is sent", async () => {
  const ctx = await createTestContext();
  const verifier = await startLocalVerifier();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    const token = await ctx.token({ [ORG]: ["member"] });
    await storeMembership(ctx);
    const req = await verifier.request({
      dcql: DCQL,
      extra: metadata({
        proof_type_values: ["DataIntegrityProof"],
        cryptosuite_values: ["ecdsa-rdfc-2019"],
      }),
    });
    const rec = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
        token,
        body: { request: req.link },
      }),
      201,
    );
    const refused = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${rec.id}/accept`, { token }),
      409,
    );
    assert.match(
      String(refused.message),
      /takes JSON-LD presentations signed with DataIntegrityProof \(cryptosuites ecdsa-rdfc-2019\)/,
    );
    assert.deepEqual(verifier.received(req.id), []);
    const after = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/openid4vp/requests/${rec.id}`, { token }),
      200,
    );
    assert.equal(after.state, "request-received");
  } finally {
    await verifier.close();
    await ctx.close();
  }
});
