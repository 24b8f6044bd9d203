/**
 * Issue Credential 2.0 with a real ACA-Py 0.12 issuer (`ld_proof`, RFC 0593, a did:key issuer):
 * ACA-Py offers, this service accepts the offer, ACA-Py issues through its admin API, this
 * service verifies and `accept-credential` (20 in parallel: one 200) acks it, and ACA-Py's own
 * record says `done`: the ack arrived, once (its events show each state once). Signed with
 * Ed25519Signature2018 over DID Exchange 1.1 and with Ed25519Signature2020 over Connections 1.0.
 * A declined offer ends ACA-Py's record `abandoned` with our problem report's reason.
 *
 * Needs `bash tests/interop/setup.sh` (ACA-Py's venv); skipped without it, failing under CI=true.
 */
import assert from "node:assert/strict";
import { acapyInterop } from "./availability.ts";
import { expectJson } from "../support/context.ts";
import { drainOutbox } from "../support/outbox.ts";
import {
  acapyCredExIn,
  acapyIssuerDid,
  acapyOffer,
  connectToAcapy,
  ourExchange,
  withAcapy,
} from "./acapy_holder.ts";

const ORG = "org-acapy";
type Json = Record<string, unknown>;

Deno.test({
  ...acapyInterop,
  name: "interop: ACA-Py issues JSON-LD credentials (Ed25519Signature2018 over DID Exchange, " +
    "2020 over Connections 1.0); accepted once, done on both sides; a declined offer is abandoned there",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withAcapy(ORG, async (acapy, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const issuerDid = await acapyIssuerDid(acapy);
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
        assert.deepEqual(states, ["offer-sent", "request-received", "credential-issued", "done"]);

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
    }),
});
