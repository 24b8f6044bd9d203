/**
 * Issue Credential 2.0 and Present Proof 2.0 with a real ACA-Py 0.12 (one ACA-Py for every step),
 * each step reading ACA-Py's own records through its admin API:
 *
 * - ACA-Py issues JSON-LD credentials (`ld_proof`, RFC 0593, a did:key issuer): it offers, this
 *   service accepts the offer, ACA-Py issues through its admin API, this service verifies, and
 *   `accept-credential` (20 in parallel: one 200) acks; ACA-Py's record says `done`, the ack
 *   arrived once (its events show each state once). Signed Ed25519Signature2018 over DID Exchange
 *   1.1 and Ed25519Signature2020 over Connections 1.0. A declined offer ends ACA-Py's record
 *   `abandoned` with our problem report's reason.
 * - ACA-Py as verifier (DIF Presentation Exchange, RFC 0510) on the connection that issued a
 *   credential, with definitions as ACA-Py writes them (a PE 1.0 `schema` uri that is an expanded
 *   type IRI, `format.ldp_vp.proof_type`): this service answers, ACA-Py verifies through its admin
 *   API, and its record says `done`, `verified: "true"` (presentations signed Ed25519Signature2018
 *   and 2020); its ack ends ours `done`. A definition no stored credential meets: accept is 409
 *   naming the descriptor, nothing reaches ACA-Py (its record stays `request-sent` once our outbox
 *   is empty), and decline ends ACA-Py's record `abandoned` with our reason.
 *
 * Needs `bash tests/interop/setup.sh` (ACA-Py's venv); skipped without it, failing under CI=true.
 */
import assert from "node:assert/strict";
import { acapyInterop } from "./availability.ts";
import { type ServedContext, waitFor } from "../didcomm/helpers.ts";
import { expectJson } from "../support/context.ts";
import { drainOutbox } from "../support/outbox.ts";
import type { AcapyPeer } from "./acapy_peer.ts";
import {
  acapyCredExIn,
  acapyIssuerDid,
  acapyOffer,
  connectToAcapy,
  issueFromAcapy,
  ourExchange,
  withAcapy,
} from "./acapy_holder.ts";

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
  name: "interop: credentials and proofs with a real ACA-Py",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: (t) =>
    withAcapy(ORG, async (acapy, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const issuerDid = await acapyIssuerDid(acapy);

      await t.step(
        "ACA-Py issues JSON-LD credentials (2018 over DID Exchange, 2020 over Connections 1.0); accepted once, done on both sides",
        async () => {
          const cases = [
            ["didexchange/1.1", "Ed25519Signature2018"],
            ["connections/1.0", "Ed25519Signature2020"],
          ] as const;
          for (const [handshake, proofType] of cases) {
            const { ours, theirs } = await connectToAcapy(acapy, ctx, ORG, token, handshake);
            const offer = await acapyOffer(acapy, theirs.connection_id, issuerDid, proofType);
            const offered = await ourExchange(ctx, ORG, token, offer.threadId, "offer-received");
            assert.equal(offered.connectionId, ours.id);
            assert.deepEqual(offered.credentialAttributes, [
              { "mime-type": "text/plain", name: "name", value: "Alice" },
            ]);
            const body = { credentialRecordId: offered.id };
            const accepted = await expectJson(
              await ctx.call("POST", "/credentials/accept-offer", { token, body }),
              200,
            );
            assert.equal(accepted.state, "request-sent");
            // ACA-Py checks that our request is its offer (RFC 0593), then waits for its admin.
            await acapyCredExIn(acapy, offer.credExId, "request-received");
            await acapy.admin("POST", `/issue-credential-2.0/records/${offer.credExId}/issue`, {});
            await ourExchange(ctx, ORG, token, offer.threadId, "credential-received");

            const results = await Promise.all(
              Array.from({ length: 20 }, () =>
                ctx.call("POST", "/credentials/accept-credential", { token, body })),
            );
            assert.deepEqual(
              results.map((r) =>
                r.status
              ).sort(),
              [200, ...Array(19).fill(409)],
            );
            const done = await results.find((r) => r.status === 200)!.json();
            for (const r of results) if (!r.bodyUsed) await r.body?.cancel();
            assert.equal(done.state, "done");

            const theirsDone = await acapyCredExIn(acapy, offer.credExId, "done");
            assert.equal(theirsDone.role, "issuer");
            await drainOutbox(ctx.kv); // every message of ours was delivered: a second ack is in
            const states = acapy.events("issue_credential_v2_0")
              .filter((e) => e.payload.cred_ex_id === offer.credExId)
              .map((e) => e.payload.state);
            assert.deepEqual(states, [
              "offer-sent",
              "request-received",
              "credential-issued",
              "done",
            ]);

            const w3cId = (done.credentials as Json[])[0]!.credentialRecordId;
            const w3c = await expectJson(
              await ctx.call("GET", `/orgs/${ORG}/w3c-credentials/${w3cId}`, { token }),
              200,
            );
            assert.equal((w3c._tags as Json).issuerId, issuerDid);
            const credential = w3c.credential as Json;
            assert.equal((credential.proof as Json).type, proofType);
            assert.equal((credential.credentialSubject as Json).name, "Alice");
          }
        },
      );

      await t.step("a declined offer is abandoned in ACA-Py's record", async () => {
        // Declined: our problem report ends ACA-Py's record abandoned, with our reason.
        const { theirs } = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.1");
        const offer = await acapyOffer(
          acapy,
          theirs.connection_id,
          issuerDid,
          "Ed25519Signature2018",
        );
        const offered = await ourExchange(ctx, ORG, token, offer.threadId, "offer-received");
        const declined = await expectJson(
          await ctx.call("POST", "/credentials/decline-offer", {
            token,
            body: { credentialRecordId: offered.id },
          }),
          200,
        );
        assert.equal(declined.state, "declined");
        const abandoned = await acapyCredExIn(acapy, offer.credExId, "abandoned");
        assert.match(String(abandoned.error_msg), /declined/);
      });

      await t.step(
        "ACA-Py verifies our presentations (2018 and 2020: done, verified true); an unmet definition is 409 and sends nothing; decline abandons ACA-Py's record",
        async () => {
          const { ours, theirs } = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.1");
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
        },
      );
    }),
});
