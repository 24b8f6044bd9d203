/**
 * Present Proof 2.0 with Data Integrity: a verifier whose presentation definition asks for
 * `DataIntegrityProof` (`format.ldp_vp.proof_type`, or the PE v2 `di_vp` format) gets a
 * presentation signed `eddsa-rdfc-2022` by the org's did:key over its challenge and domain, which
 * Digital Bazaar's own verifier accepts, together with the stored credentials in it (one signed
 * `ecdsa-rdfc-2019`, one Ed25519Signature2018). One that asks for a cryptosuite the service does
 * not sign gets 409 naming it, and nothing is sent. Without a proof type the presentation stays
 * Ed25519Signature2018.
 */
import assert from "node:assert/strict";
import { newW3cRecord } from "../../src/credentials/mod.ts";
import { uuidv7 } from "../../src/kv/mod.ts";
import { expectJson } from "../support/context.ts";
import { localResolver } from "../support/local_resolver.ts";
import {
  digitalBazaarVerifies,
  ecdsaIssuer,
  signDataIntegrity,
} from "../credentials/jsonld/di_keys.ts";
import {
  acceptRequest,
  createProofContext,
  definition,
  presentationOf,
  type ProofContext,
  proofOf,
  requestMessage,
  sentOn,
} from "./helpers.ts";

type Json = Record<string, unknown>;

/** Stores a VC 2.0 credential with `subject` signed `ecdsa-rdfc-2019` (P-256) by a new issuer. */
async function storeDataIntegrity(ctx: ProofContext, subject: Json): Promise<string> {
  const issuer = await ecdsaIssuer("P-256");
  const vc = await signDataIntegrity({
    "@context": ["https://www.w3.org/ns/credentials/v2", { name: "https://schema.org/name" }],
    type: ["VerifiableCredential"],
    issuer: issuer.did,
    validFrom: "2025-01-01T00:00:00Z",
    credentialSubject: subject,
  }, issuer);
  const id = uuidv7(Date.now());
  const exchange = { id: crypto.randomUUID(), connectionId: ctx.connectionId };
  const op = ctx.kv.atomic();
  ctx.services.credentials.add(op, ctx.orgId, {
    format: "ldp_vc",
    record: newW3cRecord({ id, credential: vc, exchange, now: Date.now() }),
  });
  await op.commit();
  await new Promise((r) => setTimeout(r, 2));
  return id;
}

const resolveDid = async (did: string) => (await localResolver.resolve(did)).didDocument as never;

/** Receives `pd`, accepts it, and returns the presentation sent. */
async function present(ctx: ProofContext, pd: Json, challenge: string): Promise<Json> {
  const req = requestMessage(pd, { challenge, domain: "verifier.test" });
  await ctx.receive(req);
  const rec = await proofOf(ctx, req["@id"]);
  assert.equal(
    (await expectJson(await acceptRequest(ctx, rec.id), 200)).state,
    "presentation-sent",
  );
  const [msg] = sentOn(await ctx.flush(), req["@id"], "presentation");
  assert.ok(msg, "a presentation was sent");
  return presentationOf(msg);
}

for (
  const [how, format] of [
    ["format.ldp_vp.proof_type", {
      ldp_vc: { proof_type: ["DataIntegrityProof", "Ed25519Signature2018"] },
      ldp_vp: { proof_type: ["DataIntegrityProof"] },
    }],
    ["the di_vp format", {
      ldp_vc: { proof_type: ["DataIntegrityProof", "Ed25519Signature2018"] },
      di_vp: { proof_type: ["DataIntegrityProof"], cryptosuite: ["eddsa-rdfc-2022"] },
    }],
  ] as const
) {
  Deno.test(`Present Proof: a definition asking for DataIntegrityProof by ${how} gets an eddsa-rdfc-2022 presentation Digital Bazaar's verifier accepts`, async () => {
    const ctx = await createProofContext();
    try {
      await storeDataIntegrity(ctx, { name: "Alice" });
      await ctx.store({ age: 30 });
      const pd = {
        ...definition(["name", "$.credentialSubject.name"], ["age", "$.credentialSubject.age"]),
        format,
      };
      const vp = await present(ctx, pd, "c-di");
      const proof = vp.proof as Json;
      const holder = String(vp.holder);
      assert.equal(proof.type, "DataIntegrityProof");
      assert.equal(proof.cryptosuite, "eddsa-rdfc-2022");
      assert.equal(proof.proofPurpose, "authentication");
      assert.equal(proof.challenge, "c-di");
      assert.equal(proof.domain, "verifier.test");
      assert.equal(proof.verificationMethod, `${holder}#${holder.slice(8)}`);
      const creds = vp.verifiableCredential as Json[];
      assert.deepEqual(creds.map((c) => (c.proof as Json).type).sort(), [
        "DataIntegrityProof",
        "Ed25519Signature2018",
      ]);
      const check = (challenge: string) =>
        digitalBazaarVerifies(vp, { holder, challenge, domain: "verifier.test", resolveDid });
      const verified = await check("c-di");
      assert.equal(verified.verified, true, JSON.stringify(verified.error));
      assert.equal((await check("another")).verified, false);
      const changed = structuredClone(vp);
      (changed as { holder: string }).holder = "did:example:someone-else";
      assert.equal(
        (await digitalBazaarVerifies(changed, { holder, challenge: "c-di", resolveDid })).verified,
        false,
      );
    } finally {
      await ctx.close();
    }
  });
}

Deno.test("Present Proof: a definition asking only for a cryptosuite this service does not sign is 409 naming it; nothing is sent", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    const pd = {
      ...definition(["name", "$.credentialSubject.name"]),
      format: {
        ldp_vc: { proof_type: ["Ed25519Signature2018"] },
        di_vp: { proof_type: ["DataIntegrityProof"], cryptosuite: ["ecdsa-rdfc-2019"] },
      },
    };
    const req = requestMessage(pd);
    await ctx.receive(req);
    const rec = await proofOf(ctx, req["@id"]);
    const refused = await expectJson(await acceptRequest(ctx, rec.id), 409);
    assert.match(
      JSON.stringify(refused),
      /DataIntegrityProof \(cryptosuite ecdsa-rdfc-2019\) \(format.di_vp\)/,
    );
    assert.deepEqual(sentOn(await ctx.flush(), req["@id"], "presentation"), []);
    assert.equal((await proofOf(ctx, req["@id"])).state, "request-received");
  } finally {
    await ctx.close();
  }
});

Deno.test("Present Proof: without a proof type, or one listing Ed25519Signature2018 first, the presentation stays Ed25519Signature2018", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    for (
      const format of [
        undefined,
        {
          ldp_vc: { proof_type: ["Ed25519Signature2018"] },
          ldp_vp: { proof_type: ["Ed25519Signature2018", "DataIntegrityProof"] },
        },
      ]
    ) {
      const pd = {
        ...definition(["name", "$.credentialSubject.name"]),
        ...(format ? { format } : {}),
      };
      const vp = await present(ctx, pd, "c-2018");
      assert.equal((vp.proof as Json).type, "Ed25519Signature2018");
    }
  } finally {
    await ctx.close();
  }
});
