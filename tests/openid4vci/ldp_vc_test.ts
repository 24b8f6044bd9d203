/**
 * OpenID4VCI `ldp_vc`: an offer of a W3C JSON-LD credential from a local issuer (the only kind
 * that issues Data Integrity proofs here, `ldp_issuer.ts`) is accepted with a proof of possession
 * by the org's did:key; the credential, signed `eddsa-rdfc-2022` or `ecdsa-rdfc-2019`, is verified
 * through the service's resolver, bound to that DID, stored in the org's W3C store (the offer as
 * the exchange that brought it) and offered to a verifier like one from DIDComm. A credential with
 * one changed byte, one bound to another subject (the W3C vector as published), one of another type
 * or one whose DI-signed status list says revoked ends the offer `failed` with the reason, nothing
 * stored.
 */
import assert from "node:assert/strict";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import {
  changeOneByte,
  type DiIssuer,
  ecdsaIssuer,
  eddsaIssuer,
  keepVectorContexts,
  signDataIntegrity,
  VECTOR_CONTEXT_ALLOW,
  VECTOR_FILES,
  vectorText,
} from "../credentials/jsonld/di_keys.ts";
import { entry, listHost, unsignedListCredential } from "../status/lists.ts";
import { LDP_TYPES, startLdpIssuer } from "./ldp_issuer.ts";

const ORG = "org-ldp";
type Json = Record<string, unknown>;

async function setup(issuer: DiIssuer) {
  const ctx = await createTestContext({ env: { JSONLD_CONTEXT_ALLOW: VECTOR_CONTEXT_ALLOW } });
  const ldp = startLdpIssuer(issuer);
  await keepVectorContexts(ctx.kv);
  await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
  const token = await ctx.token({ [ORG]: ["member"] });
  return {
    ctx,
    ldp,
    token,
    /** Receives a fresh offer and accepts it; the offer record after the accept. */
    async receive(): Promise<Json> {
      const offer = await expectJson(
        await ctx.call("POST", `/orgs/${ORG}/openid4vc/offers`, {
          token,
          body: { credentialOffer: ldp.offer() },
        }),
        201,
      );
      return await expectJson(
        await ctx.call("POST", `/orgs/${ORG}/openid4vc/offers/${offer.id}/accept`, {
          token,
          body: {},
        }),
        200,
      );
    },
    w3c: async (ctx2: TestContext = ctx) =>
      (await expectJson(
        await ctx2.call("GET", `/orgs/${ORG}/w3c-credentials`, { token }),
        200,
      )).data as Json[],
    close: async () => {
      await ldp.close();
      await ctx.close();
    },
  };
}

for (
  const [name, make] of [
    ["eddsa-rdfc-2022", () => Promise.resolve(eddsaIssuer())],
    ["ecdsa-rdfc-2019 P-256", () => ecdsaIssuer("P-256")],
  ] as const
) {
  Deno.test(`OID4VCI ldp_vc (${name}): the credential is verified, bound to the org's DID and stored as a W3C credential`, async () => {
    const issuer = await make();
    const s = await setup(issuer);
    try {
      const done = await s.receive();
      assert.equal(done.state, "done", String(done.errorMessage));
      const ids = done.credentialIds as string[];
      assert.equal(ids.length, 1);
      const stored = await expectJson(
        await s.ctx.call("GET", `/orgs/${ORG}/w3c-credentials/${ids[0]}`, { token: s.token }),
        200,
      );
      const vc = stored.credential as Json;
      assert.equal((vc.proof as Json).cryptosuite, issuer.cryptosuite);
      assert.equal((vc.credentialSubject as Json).id, s.ldp.holders[0]);
      assert.ok(s.ldp.holders[0]!.startsWith("did:key:z6Mk"), "the org's Ed25519 did:key");
      assert.equal(stored.credentialExchangeId, done.id);
      assert.equal(stored.connectionId, "");
      assert.deepEqual((stored._tags as Json).proofTypes, ["DataIntegrityProof"]);
      assert.deepEqual((stored._tags as Json).types, LDP_TYPES);
      assert.equal((stored.status as Json).state, "unknown");
      // Not an SD-JWT VC: the other store does not have it.
      const sd = await s.ctx.call("GET", `/orgs/${ORG}/sd-jwt-credentials/${ids[0]}`, {
        token: s.token,
      });
      assert.equal(sd.status, 404);
      await sd.body?.cancel();
    } finally {
      await s.close();
    }
  });
}

Deno.test("OID4VCI ldp_vc: a changed byte, the W3C vector (another subject) and another type each fail the offer with the reason; nothing is stored", async () => {
  const issuer = eddsaIssuer();
  const s = await setup(issuer);
  try {
    s.ldp.sendInstead((_holder, issued) =>
      JSON.parse(changeOneByte(JSON.stringify(issued), "Alice"))
    );
    const changed = await s.receive();
    assert.equal(changed.state, "failed");
    assert.match(String(changed.errorMessage), /its proof does not verify \(.*Invalid signature/);

    s.ldp.sendInstead(() => JSON.parse(vectorText(VECTOR_FILES["eddsa-rdfc-2022"])));
    const vector = await s.receive();
    assert.equal(vector.state, "failed");
    assert.match(
      String(vector.errorMessage),
      /not bound to the org's key: its credentialSubject.id is did:example:abcdefgh, and the proof of possession named did:key:z6Mk/,
    );

    s.ldp.sendInstead((holder) =>
      signDataIntegrity({
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        type: ["VerifiableCredential"],
        issuer: issuer.did,
        validFrom: "2025-01-01T00:00:00Z",
        credentialSubject: { id: holder },
      }, issuer)
    );
    const other = await s.receive();
    assert.equal(other.state, "failed");
    assert.match(String(other.errorMessage), /lacks MembershipCredential, which the offer named/);
    assert.deepEqual(await s.w3c(), []);
  } finally {
    await s.close();
  }
});

Deno.test("OID4VCI ldp_vc: a credential whose Data Integrity status list says revoked fails the offer; a clear bit stores it valid", async () => {
  const issuer = await ecdsaIssuer("P-256");
  const s = await setup(issuer);
  const host = listHost();
  try {
    const listUrl = host.url("/list");
    const { "@context": _v1, issuanceDate: _d, ...list } = await unsignedListCredential({
      url: listUrl,
      issuer: issuer.did,
      set: [5],
    });
    host.serveJson(
      "/list",
      await signDataIntegrity({
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        ...list,
        validFrom: "2025-01-01T00:00:00Z",
      }, issuer),
    );
    const withStatus = (index: number) => (_holder: string, issued: Json) => {
      const { proof: _p, ...unsigned } = issued;
      return signDataIntegrity({ ...unsigned, credentialStatus: entry(listUrl, index) }, issuer);
    };
    s.ldp.sendInstead(withStatus(5));
    const revoked = await s.receive();
    assert.equal(revoked.state, "failed");
    assert.match(String(revoked.errorMessage), /revoked by its issuer/);
    s.ldp.sendInstead(withStatus(6));
    const valid = await s.receive();
    assert.equal(valid.state, "done", String(valid.errorMessage));
    const [stored] = await s.w3c();
    assert.equal((stored!.status as Json).state, "valid");
    assert.equal(stored!.id, (valid.credentialIds as string[])[0]);
  } finally {
    await host.close();
    await s.close();
  }
});
