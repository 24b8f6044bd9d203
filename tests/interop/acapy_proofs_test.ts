/**
 * Present Proof 2.0 with a real ACA-Py 0.12 verifier (DIF Presentation Exchange, RFC 0510) on the
 * connection that issued the credential (ACA-Py, `ld_proof`): ACA-Py sends a definition as it
 * writes them (a PE 1.0 `schema` uri that is an expanded type IRI, `format.ldp_vp.proof_type`),
 * this service answers, ACA-Py verifies through its admin API and its record says `done` with
 * `verified: "true"` (for a presentation signed Ed25519Signature2018 and one signed 2020); its ack
 * ends ours `done`. A definition no stored credential meets: accept is 409 naming the descriptor,
 * nothing reaches ACA-Py (its record stays `request-sent` once our outbox is empty), and decline
 * ends ACA-Py's record `abandoned` with our reason.
 *
 * Needs `bash tests/interop/setup.sh` (ACA-Py's venv); skipped without it, failing under CI=true.
 */
import assert from "node:assert/strict";
import { acapyInterop } from "./availability.ts";
import { type ServedContext, waitFor } from "../didcomm/helpers.ts";
import { expectJson } from "../support/context.ts";
import { drainOutbox } from "../support/outbox.ts";
import type { AcapyPeer } from "./acapy_peer.ts";
import { acapyIssuerDid, connectToAcapy, issueFromAcapy, withAcapy } from "./acapy_holder.ts";

const ORG = "org-acapy";
type Json = Record<string, unknown>;
const VC_TYPE = "https://www.w3.org/2018/credentials#VerifiableCredential";

/** A definition as ACA-Py's own examples write it: one descriptor, `schema`, `format.ldp_vp`. */
function definition(path: string, proofType: string, filter?: Json): Json {
  return {
    id: crypto.randomUUID(),
    format: { ldp_vp: { proof_type: [proofType] } },
    input_descriptors: [{
      id: "name",
      name: "Name",
      schema: [{ uri: VC_TYPE }],
      constraints: { fields: [{ path: [path], ...(filter ? { filter } : {}) }] },
    }],
  };
}

/** ACA-Py (verifier) sends `definition`; returns its exchange id and the thread. */
async function requestProof(acapy: AcapyPeer, connectionId: string, pd: Json, domain?: string) {
  const r = await acapy.admin<Json>("POST", "/present-proof-2.0/send-request", {
    connection_id: connectionId,
    auto_verify: false,
    auto_remove: false,
    comment: "Show your name",
    presentation_request: {
      dif: { options: { challenge: crypto.randomUUID(), domain }, presentation_definition: pd },
    },
  });
  return { presExId: String(r.pres_ex_id), threadId: String(r.thread_id) };
}

/** ACA-Py's presentation exchange record once `pred` holds. */
function acapyPresEx(acapy: AcapyPeer, id: string, what: string, pred: (r: Json) => boolean) {
  return waitFor(`ACA-Py's presentation exchange ${id} ${what}`, async () => {
    const r = await acapy.admin<Json>("GET", `/present-proof-2.0/records/${id}`);
    return pred(r) ? r : undefined;
  }, 15_000);
}

/** Our proof record on `threadId` once it is in `state`. */
function ourProof(ctx: ServedContext, token: string, threadId: string, state: string) {
  return waitFor(`our proof record on ${threadId} in ${state}`, async () => {
    const list = await expectJson(await ctx.call("GET", `/orgs/${ORG}/proofs`, { token }), 200);
    const rec = (list.data as Json[]).find((x) => x.threadId === threadId);
    return rec?.state === state ? rec : undefined;
  }, 15_000);
}

Deno.test({
  ...acapyInterop,
  name: "interop: ACA-Py verifies our presentations (2018 and 2020: done, verified true); an " +
    "unmet definition is 409 and sends nothing; decline abandons ACA-Py's record",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withAcapy(ORG, async (acapy, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const { ours, theirs } = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.1");
      const issuerDid = await acapyIssuerDid(acapy);
      const { done } = await issueFromAcapy(
        acapy,
        ctx,
        ORG,
        token,
        theirs.connection_id,
        issuerDid,
        "Ed25519Signature2020",
      );
      const credentialId = (done.credentials as Json[])[0]!.credentialRecordId;
      const accept = (id: unknown) =>
        ctx.call("POST", "/proofs/accept-request", { token, body: { proofRecordId: id } });

      for (const proofType of ["Ed25519Signature2018", "Ed25519Signature2020"]) {
        const pd = definition("$.credentialSubject.name", proofType);
        const req = await requestProof(acapy, theirs.connection_id, pd, "acapy.test");
        const received = await ourProof(ctx, token, req.threadId, "request-received");
        assert.equal(received.connectionId, ours.id);
        assert.deepEqual(received.verifier, { connectionId: ours.id, label: acapy.label });
        assert.deepEqual(received.selection, { name: credentialId });
        const sent = await expectJson(await accept(received.id), 200);
        assert.equal(sent.state, "presentation-sent");

        await acapyPresEx(acapy, req.presExId, "presentation-received", (r) => {
          if (r.state === "abandoned") throw new Error(`ACA-Py abandoned it: ${r.error_msg}`);
          return r.state === "presentation-received";
        });
        await acapy.admin(
          "POST",
          `/present-proof-2.0/records/${req.presExId}/verify-presentation`,
          {},
        );
        const verified = await acapy.admin<Json>(
          "GET",
          `/present-proof-2.0/records/${req.presExId}`,
        );
        assert.equal(verified.state, "done");
        assert.equal(verified.verified, "true", JSON.stringify(verified.verified_msgs ?? null));
        const vp = ((verified.by_format as Json).pres as Json).dif as Json;
        const proof = vp.proof as Json;
        assert.equal(proof.type, proofType);
        assert.equal(proof.proofPurpose, "authentication");
        assert.equal(proof.domain, "acapy.test");
        assert.ok(String(vp.holder).startsWith("did:key:z6Mk"));
        await ourProof(ctx, token, req.threadId, "done"); // ACA-Py's ack
      }

      // A descriptor no stored credential meets: 409, nothing sent, then decline.
      const unmet = definition("$.credentialSubject.age", "Ed25519Signature2018", {
        type: "number",
        minimum: 18,
      });
      const req = await requestProof(acapy, theirs.connection_id, unmet);
      const pending = await ourProof(ctx, token, req.threadId, "request-received");
      assert.match(String(pending.unanswerable), /input descriptor "name" \(Name\)/);
      const refused = await expectJson(await accept(pending.id), 409);
      assert.match(String(refused.message), /input descriptor "name" \(Name\)/);
      await drainOutbox(ctx.kv);
      const untouched = await acapy.admin<Json>(
        "GET",
        `/present-proof-2.0/records/${req.presExId}`,
      );
      assert.equal(untouched.state, "request-sent");

      const declined = await expectJson(
        await ctx.call("POST", "/proofs/decline-request", {
          token,
          body: { proofRecordId: pending.id },
        }),
        200,
      );
      assert.equal(declined.state, "declined");
      const abandoned = await acapyPresEx(
        acapy,
        req.presExId,
        "abandoned",
        (r) => r.state === "abandoned",
      );
      assert.match(String(abandoned.error_msg), /declined/);
      assert.equal(abandoned.verified, undefined);
    }),
});
