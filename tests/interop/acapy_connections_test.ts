/**
 * Interop of the connection protocols with a real ACA-Py 0.12 (Python subprocess, see
 * `acapy_peer.ts`): ACA-Py invites, this service receives the invitation, ACA-Py accepts our
 * request through its admin API, and both sides' records say the handshake ended (ours
 * `completed`, ACA-Py's `active`): DID Exchange 1.1 with an inline service, with the service as a
 * did:peer:2 and a did:peer:4, from an invitation offering only DID Exchange 1.0 (both sides then
 * speak 1.1), Connections 1.0 out of band and the legacy `?c_i=` invitation. ACA-Py's trust pings
 * are answered (its `ping` events report the responses); the ping we send after a Connections 1.0
 * response is what ACA-Py records as received.
 *
 * Only ACA-Py invites: this service has no route that makes an invitation (it connects as the
 * requester, CONTRACT "Connection records": role `requester`), so "we invite ACA-Py" cannot be run.
 *
 * Needs `bash tests/interop/setup.sh` (ACA-Py's venv); skipped without it, failing under CI=true.
 */
import assert from "node:assert/strict";
import { acapyInterop } from "./availability.ts";
import { waitFor } from "../support/wait.ts";
import type { AcapyPeer } from "./acapy_peer.ts";
import { type AcapyConnection, connectToAcapy, withAcapy } from "./acapy_holder.ts";

const ORG = "org-acapy";

/** ACA-Py pings on the connection; its `ping` event reports our response on that thread. */
async function pingAnswered(acapy: AcapyPeer, theirs: AcapyConnection) {
  const ping = await acapy.admin<{ thread_id: string }>(
    "POST",
    `/connections/${theirs.connection_id}/send-ping`,
    { comment: "ping" },
  );
  const answered = await waitFor(
    "ACA-Py's ping answered",
    () =>
      acapy.events("ping").find((e) =>
        e.payload.thread_id === ping.thread_id && e.payload.state === "response_received"
      ),
    15_000,
  );
  // ACA-Py 0.12 leaves the message receipt's connection_id unset: its event carries null there.
  assert.equal(answered.payload.connection_id, null);
}

Deno.test({
  ...acapyInterop,
  name:
    "interop: DID Exchange 1.1 with a real ACA-Py completes on both sides; its ping is answered",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withAcapy(ORG, async (acapy, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const t0 = performance.now();
      const { ours, theirs } = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.1");
      console.log(
        `DID Exchange 1.1 with ACA-Py: ${Math.round(performance.now() - t0)} ms to both ends ` +
          `(ACA-Py started in ${acapy.startupMs} ms, ${acapy.attempts} attempt(s))`,
      );
      assert.equal(ours.protocol, "https://didcomm.org/didexchange/1.1");
      assert.equal(theirs.connection_protocol, "didexchange/1.1");
      assert.equal(theirs.rfc23_state, "completed");
      assert.match(ours.did, /^did:peer:2\./);
      assert.equal(theirs.their_did, ours.did);
      assert.equal(ours.theirDid, theirs.my_did);
      assert.equal(ours.theirLabel, acapy.label);
      assert.equal(theirs.their_label, "HolderAgent");
      await pingAnswered(acapy, theirs);
    }),
});

Deno.test({
  ...acapyInterop,
  name: "interop: ACA-Py's other invitations complete on both sides: service as did:peer:2 and " +
    "did:peer:4, DID Exchange 1.0 only, Connections 1.0 (out of band and c_i)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withAcapy(ORG, async (acapy, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      for (const method of ["did:peer:2", "did:peer:4"]) {
        const { ours, theirs, invitation } = await connectToAcapy(
          acapy,
          ctx,
          ORG,
          token,
          "didexchange/1.1",
          { use_did_method: method },
        );
        const [service] = invitation.services as unknown[];
        assert.ok(String(service).startsWith(method), `the invitation's service is a ${method}`);
        assert.equal(theirs.rfc23_state, "completed");
        assert.equal(ours.theirDid, theirs.my_did);
      }

      // An inviter offering only 1.0: our 1.1 request is taken, and both sides record 1.1.
      const v10 = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.0");
      assert.equal(v10.ours.protocol, "https://didcomm.org/didexchange/1.1");
      assert.equal(v10.theirs.connection_protocol, "didexchange/1.1");

      const ourPings = () =>
        acapy.events("ping").filter((e) => e.payload.state === "received" && !e.payload.responded);
      for (const [i, handshake] of (["connections/1.0", "connections-legacy"] as const).entries()) {
        const { ours, theirs } = await connectToAcapy(acapy, ctx, ORG, token, handshake);
        assert.equal(ours.protocol, "https://didcomm.org/connections/1.0");
        assert.equal(theirs.connection_protocol, "connections/1.0");
        assert.equal(theirs.their_did, ours.did);
        assert.equal(ours.theirLabel, acapy.label);
        // Our ping after the response (response_requested: false) is what made it active.
        assert.equal(ourPings().length, i + 1);
        await pingAnswered(acapy, theirs);
      }
    }),
});
