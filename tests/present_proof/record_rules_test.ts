/**
 * Present Proof 2.0 rules no other test holds (CONTRACT "Present Proof 2.0"):
 *
 * - the presentation is signed with the proof type the definition's `format.ldp_vp.proof_type`
 *   names (Ed25519Signature2020 here, checked by a verifier with only that suite); a definition
 *   that names no type this service signs is 409 naming it, nothing is sent, and the record stays
 *   `request-received`;
 * - the holder is the org key's did:key, which the verifier resolves on its own;
 * - `_tags` (`state`, `threadId`, `connectionId`, `role`) are current in every state;
 * - a decline sends the problem report and emits `proof.state_changed` with `declined`.
 */
import assert from "node:assert/strict";
import * as vc from "@digitalbazaar/vc";
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { Ed25519Signature2020 } from "@digitalbazaar/ed25519-signature-2020";
import { createDocumentLoader } from "../../src/credentials/jsonld/document_loader.ts";
import { resolveDidKey } from "../credentials/jsonld/test_keys.ts";
import { expectJson } from "../support/context.ts";
import { recordEvents } from "../support/outbox.ts";
import {
  acceptRequest,
  createProofContext,
  definition,
  presentationOf,
  proofOf,
  receiveRequest,
  sentOn,
} from "./helpers.ts";

type Json = Record<string, unknown>;

/** The definition of one `name` descriptor asking for a presentation of `proofTypes`. */
const wanting = (proofTypes: string[]) => ({
  ...definition(["name", "$.credentialSubject.name"]),
  format: {
    ldp_vc: { proof_type: ["Ed25519Signature2018"] },
    ldp_vp: { proof_type: proofTypes },
  },
});

Deno.test("accept-request signs with the proof type format.ldp_vp.proof_type names; none it can sign is 409, nothing sent", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    for (
      const types of [["Ed25519Signature2020"], ["BbsBlsSignature2020", "Ed25519Signature2020"]]
    ) {
      const { req, rec } = await receiveRequest(ctx, wanting(types));
      assert.equal(
        (await expectJson(await acceptRequest(ctx, rec.id), 200)).state,
        "presentation-sent",
      );
      const [msg] = sentOn(await ctx.flush(), req["@id"], "presentation");
      const vp = presentationOf(msg!);
      const proof = vp.proof as Json;
      assert.equal(proof.type, "Ed25519Signature2020", types.join());
      const holder = String(vp.holder);
      assert.ok(holder.startsWith("did:key:z6Mk"), "the holder is the org key's did:key");
      assert.equal(proof.verificationMethod, `${holder}#${holder.slice(8)}`);
      // The verifier's own check: the 2020 suite for the presentation, did:key resolved by itself.
      const result = await vc.verify({
        presentation: vp,
        challenge: "challenge-1",
        suite: [new Ed25519Signature2020(), new Ed25519Signature2018()],
        documentLoader: createDocumentLoader({ resolveDid: resolveDidKey }),
      }) as { verified: boolean; error?: unknown };
      assert.equal(result.verified, true, JSON.stringify(result.error));
    }

    const { req, rec } = await receiveRequest(ctx, wanting(["BbsBlsSignature2020"]));
    const refused = await expectJson(await acceptRequest(ctx, rec.id), 409);
    assert.match(String(refused.message), /BbsBlsSignature2020.*format\.ldp_vp\.proof_type/);
    assert.deepEqual(sentOn(await ctx.flush(), req["@id"], "presentation"), []);
    assert.equal((await proofOf(ctx, req["@id"])).state, "request-received");
  } finally {
    await ctx.close();
  }
});

Deno.test("proof records: _tags are current in every state; a decline sends a problem report and emits declined", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    const tagsOf = (r: Json) => r._tags as Json;
    const expectTags = (r: Json, state: string) =>
      assert.deepEqual(tagsOf(r), {
        state,
        threadId: r.threadId,
        connectionId: ctx.connectionId,
        role: "prover",
      }, state);

    const a = await receiveRequest(ctx);
    expectTags(a.rec, "request-received");
    expectTags(await expectJson(await acceptRequest(ctx, a.rec.id), 200), "presentation-sent");
    await ctx.receive({
      "@type": "https://didcomm.org/present-proof/2.0/ack",
      "@id": crypto.randomUUID(),
      status: "OK",
      "~thread": { thid: a.req["@id"] },
    });
    expectTags(await proofOf(ctx, a.req["@id"]), "done");

    const b = await receiveRequest(ctx);
    const declined = await expectJson(
      await ctx.call("POST", "/proofs/decline-request", {
        token: ctx.member,
        body: { proofRecordId: b.rec.id },
      }),
      200,
    );
    assert.equal(declined.state, "declined");
    expectTags(declined, "declined");
    const [report] = sentOn(await ctx.flush(), b.req["@id"], "problem-report");
    assert.ok(report, "the verifier is told");
    assert.match(String((report.description as Json).code), /^[a-z._-]+$/, "with a code");

    for (
      const [r, states] of [[a, ["request-received", "presentation-sent", "done"]], [b, [
        "request-received",
        "declined",
      ]]] as const
    ) {
      const events = await recordEvents(ctx.kv, "proof.state_changed", String(r.rec.id));
      assert.deepEqual(events.map((e) => e.state), states);
      for (const e of events) expectTags(e, String(e.state));
    }
  } finally {
    await ctx.close();
  }
});
