/**
 * Interop of the Present Proof 2.0 prover with a real Credo 0.6.3 verifier
 * (`DifPresentationExchangeProofFormatService`) on the connection that issued the credential:
 * a satisfiable request ends `done` on both sides with Credo's own verification `isVerified`;
 * a second accept is 409; another org's token sees 404; a request whose descriptor no credential
 * meets gives 409 on accept and Credo receives nothing, then decline ends Credo's record
 * `abandoned`; `submission_requirements` (pick 1 of 2) are answered with the one descriptor that
 * can be met.
 *
 * Needs `bash tests/interop/setup.sh` (npm packages of the Credo peer); fails clearly without.
 */
import { credoInterop } from "./availability.ts";
import assert from "node:assert/strict";
import { type ServedContext, waitFor } from "../didcomm/helpers.ts";
import { withCredoIssuer } from "./holder_service.ts";
import { connectAndIssue } from "./credo_credential.ts";
import { drainOutbox } from "../support/outbox.ts";
import { expectJson } from "../support/context.ts";

const ORG = "org-proofs";
type Json = Record<string, unknown>;
const PRESENTATION = "https://didcomm.org/present-proof/2.0/presentation";

/** Our proof record on `threadId` once it exists (and is in `state`, when given). */
function ourProof(ctx: ServedContext, token: string, threadId: string, state?: string) {
  return waitFor(`our proof record on ${threadId}${state ? ` in ${state}` : ""}`, async () => {
    const list = await expectJson(await ctx.call("GET", `/orgs/${ORG}/proofs`, { token }), 200);
    const rec = (list.data as Json[]).find((x) => x.threadId === threadId);
    return rec && (!state || rec.state === state) ? rec : undefined;
  }, 15_000);
}

Deno.test({
  ...credoInterop,
  name: "interop: Credo verifies our presentation (done on both sides, isVerified); second " +
    "accept 409; other org 404; an unmet descriptor is 409 and sends nothing; decline abandons " +
    "Credo's record; pick-1-of-2 requirements are met",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const { theirs, ours, credentialId } = await connectAndIssue(issuer, ctx, ORG, token);

      // 1. A satisfiable request, with a domain.
      const req = await issuer.requestProof({ connectionId: theirs, domain: "verifier.test" });
      const received = await ourProof(ctx, token, req.threadId, "request-received");
      assert.equal(received.role, "prover");
      assert.equal(received.connectionId, ours);
      assert.equal(received.protocolVersion, "v2");
      assert.deepEqual(received.verifier, { connectionId: ours, label: "Credo Issuer" });
      assert.equal(received.requestFormat, "dif/presentation-exchange/definitions@v1.0");
      const [descriptor] = received.inputDescriptors as Json[];
      assert.deepEqual((descriptor as Json).matches, [{
        credentialId,
        format: "ldp_vc",
        disclosedClaims: [["credentialSubject", "name"]],
      }]);
      assert.deepEqual(received.selection, { name: credentialId });

      const accept = (id: unknown, t = token) =>
        ctx.call("POST", "/proofs/accept-request", { token: t, body: { proofRecordId: id } });
      const other = await ctx.token({ "org-other": ["owner"] });
      assert.equal((await accept(received.id, other)).status, 404);
      await expectJson(await ctx.call("GET", `/proofs/${received.id}`, { token: other }), 404);

      const sent = await expectJson(await accept(received.id), 200);
      assert.equal(sent.state, "presentation-sent");
      const again = await expectJson(await accept(received.id), 409);
      assert.match(String(again.message), /presentation-sent/);

      const verified = await issuer.waitForProof(req.proofExchangeId, "done", 15_000);
      assert.equal(verified.isVerified, true, verified.errorMessage ?? "");
      await ourProof(ctx, token, req.threadId, "done");
      const detail = await issuer.proof(req.proofExchangeId);
      const vp = (detail.formatData as { presentation: { presentationExchange: Json } })
        .presentation.presentationExchange;
      const proof = vp.proof as Json;
      assert.equal(proof.proofPurpose, "authentication");
      assert.equal(proof.domain, "verifier.test");
      assert.equal(proof.type, "Ed25519Signature2018");
      assert.ok(String(vp.holder).startsWith("did:key:z6Mk"));

      // 2. A descriptor no stored credential meets: 409 naming it, nothing sent, then decline.
      const unmet = await issuer.requestProof({
        connectionId: theirs,
        presentationDefinition: {
          id: crypto.randomUUID(),
          input_descriptors: [{
            id: "age-over-18",
            name: "Age",
            constraints: {
              fields: [{
                path: ["$.credentialSubject.age"],
                filter: { type: "number", minimum: 18 },
              }],
            },
          }],
        },
      });
      const pending = await ourProof(ctx, token, unmet.threadId, "request-received");
      assert.match(String(pending.unanswerable), /age-over-18/);
      const refused = await expectJson(await accept(pending.id), 409);
      assert.match(String(refused.message), /input descriptor "age-over-18" \(Age\)/);
      const declined = await expectJson(
        await ctx.call("POST", "/proofs/decline-request", {
          token,
          body: { proofRecordId: pending.id },
        }),
        200,
      );
      assert.equal(declined.state, "declined");
      const abandoned = await issuer.waitForProof(unmet.proofExchangeId, "abandoned", 15_000);
      assert.match(String(abandoned.errorMessage), /declined/);
      await expectJson(await accept(pending.id), 409);

      // 3. pick 1 of 2: the name descriptor is met, the age one is not.
      const pick = await issuer.requestProof({
        connectionId: theirs,
        presentationDefinition: {
          id: crypto.randomUUID(),
          submission_requirements: [{ name: "Who", rule: "pick", count: 1, from: "A" }],
          input_descriptors: [
            {
              id: "age",
              group: ["A"],
              constraints: { fields: [{ path: ["$.credentialSubject.age"] }] },
            },
            {
              id: "name",
              group: ["A"],
              constraints: { fields: [{ path: ["$.credentialSubject.name"] }] },
            },
          ],
        },
      });
      const picked = await ourProof(ctx, token, pick.threadId, "request-received");
      assert.deepEqual(picked.selection, { name: credentialId });
      await expectJson(await accept(picked.id), 200);
      const pickDone = await issuer.waitForProof(pick.proofExchangeId, "done", 15_000);
      assert.equal(pickDone.isVerified, true, pickDone.errorMessage ?? "");

      // Every message of ours was delivered: one presentation per accepted request, none else.
      await drainOutbox(ctx.kv);
      const presentations = (await issuer.messages()).filter((m) => m.type === PRESENTATION);
      assert.deepEqual(
        presentations.map((m) => m.thid).sort(),
        [req.threadId, pick.threadId].sort(),
      );
    }),
});
