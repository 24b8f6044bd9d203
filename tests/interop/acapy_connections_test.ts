/**
 * Interop of the connection protocols with a real ACA-Py 0.12 (Python subprocess, see
 * `acapy_peer.ts`), one ACA-Py for every step. ACA-Py invites, this service receives the
 * invitation, ACA-Py accepts our request through its admin API, and both sides' records say the
 * handshake ended (ours `completed`, ACA-Py's `active`):
 *
 * - DID Exchange 1.1 with an inline service; ACA-Py's trust ping is answered (its `ping` events
 *   report the responses);
 * - the invitation's service as a did:peer:2 and a did:peer:4, an invitation offering only DID
 *   Exchange 1.0 (both sides then speak 1.1), Connections 1.0 out of band and the legacy `?c_i=`
 *   (the ping we send after a Connections 1.0 response is what ACA-Py records as received);
 * - DID Rotate 1.0 (RFC 0794), as far as ACA-Py 0.12.8 carries it: ACA-Py rotates to a new
 *   long-form did:peer:4 and we resolve it, move the connection, ack, and answer its pings there
 *   (ACA-Py cannot read the ack: its message registry names a class `Ack` that its
 *   `did_rotate/v1_0/messages/ack.py` does not have, `RotateAck`, so its own record keeps the old
 *   DID, and a rotation of ours on that connection, sent to its new DID, goes unanswered); our
 *   endpoint moves to a relay and each connection, DID Exchange and Connections 1.0, moves to a new
 *   did:peer:2 naming it, which ACA-Py takes, its pings then coming through the relay; our hangup
 *   makes ACA-Py delete its connection. (ACA-Py's own hangup is not tested: 0.12.8 deletes its
 *   connection record before sending the hangup, so the message never leaves.)
 *
 * ACA-Py is first handed a port the test holds: ACA-Py cannot listen on port 0, so the launcher
 * reserves ports, and a port taken in between makes it start ACA-Py again on fresh ones.
 *
 * Only ACA-Py invites: this service has no route that makes an invitation (it connects as the
 * requester, CONTRACT "Connection records": role `requester`), so "we invite ACA-Py" cannot be run.
 *
 * Needs `bash tests/interop/setup.sh` (ACA-Py's venv); skipped without it, failing under CI=true.
 */
import assert from "node:assert/strict";
import { acapyInterop } from "./availability.ts";
import type { ConnectionView } from "../../src/didcomm/connections/record.ts";
import type { ServedContext } from "../didcomm/helpers.ts";
import { expectJson } from "../support/context.ts";
import { relay } from "../support/relay.ts";
import { freePort } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import type { AcapyPeer } from "./acapy_peer.ts";
import { type AcapyConnection, connectToAcapy, withAcapy } from "./acapy_holder.ts";

const ORG = "org-acapy";

/** ACA-Py pings on its connection `id`; its `ping` event reports our response on that thread. */
async function pingAnswered(acapy: AcapyPeer, id: string): Promise<void> {
  const ping = await acapy.admin<{ thread_id: string }>("POST", `/connections/${id}/send-ping`, {});
  const answered = await waitFor(
    `ACA-Py's ping on ${id} answered`,
    () =>
      acapy.events("ping").find((e) =>
        e.payload.thread_id === ping.thread_id && e.payload.state === "response_received"
      ),
    15_000,
  );
  // ACA-Py 0.12 leaves the message receipt's connection_id unset: its event carries null there.
  assert.equal(answered.payload.connection_id, null);
}

async function ours(ctx: ServedContext, token: string, id: string): Promise<ConnectionView> {
  return await expectJson(
    await ctx.call("GET", `/orgs/${ORG}/connections/${id}`, { token }),
    200,
  ) as unknown as ConnectionView;
}

/** Port picks whose first is a port the test holds open. */
function firstPortTaken(taken: Deno.Listener) {
  let first = true;
  return () => {
    if (!first) return freePort();
    first = false;
    return (taken.addr as Deno.NetAddr).port;
  };
}

Deno.test({
  ...acapyInterop,
  name: "interop: connections with a real ACA-Py",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      await withAcapy(
        ORG,
        async (acapy, ctx) => {
          const token = await ctx.token({ [ORG]: ["holder"] });
          assert.equal(acapy.attempts, 2, "started again after the taken port");
          assert.notEqual(acapy.endpoint, `http://127.0.0.1:${(taken.addr as Deno.NetAddr).port}`);

          await t.step(
            "DID Exchange 1.1 completes on both sides; ACA-Py's ping is answered",
            async () => {
              const t0 = performance.now();
              const { ours, theirs } = await connectToAcapy(
                acapy,
                ctx,
                ORG,
                token,
                "didexchange/1.1",
              );
              console.log(
                `DID Exchange 1.1 with ACA-Py: ${
                  Math.round(performance.now() - t0)
                } ms to both ends ` +
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
              await pingAnswered(acapy, theirs.connection_id);
            },
          );

          await t.step(
            "ACA-Py's other invitations: did:peer:2 and did:peer:4 services, DID Exchange 1.0 only, Connections 1.0 (out of band and c_i)",
            async () => {
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
                assert.ok(
                  String(service).startsWith(method),
                  `the invitation's service is a ${method}`,
                );
                assert.equal(theirs.rfc23_state, "completed");
                assert.equal(ours.theirDid, theirs.my_did);
              }

              // An inviter offering only 1.0: our 1.1 request is taken, and both sides record 1.1.
              const v10 = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.0");
              assert.equal(v10.ours.protocol, "https://didcomm.org/didexchange/1.1");
              assert.equal(v10.theirs.connection_protocol, "didexchange/1.1");

              const ourPings = () =>
                acapy.events("ping").filter((e) =>
                  e.payload.state === "received" && !e.payload.responded
                );
              for (
                const [i, handshake] of (["connections/1.0", "connections-legacy"] as const)
                  .entries()
              ) {
                const { ours, theirs } = await connectToAcapy(acapy, ctx, ORG, token, handshake);
                assert.equal(ours.protocol, "https://didcomm.org/connections/1.0");
                assert.equal(theirs.connection_protocol, "connections/1.0");
                assert.equal(theirs.their_did, ours.did);
                assert.equal(ours.theirLabel, acapy.label);
                // Our ping after the response (response_requested: false) is what made it active.
                assert.equal(ourPings().length, i + 1);
                await pingAnswered(acapy, theirs.connection_id);
              }
            },
          );

          await t.step(
            "DID Rotate: ACA-Py rotates to a did:peer:4; our endpoint change rotates ours; our hangup deletes ACA-Py's connection",
            async () => {
              const owner = await ctx.token({ [ORG]: ["owner"] });
              const didx = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.1");
              const legacy = await connectToAcapy(acapy, ctx, ORG, token, "connections/1.0");
              // ACA-Py rotates this one; ACA-Py, which cannot read our ack, does not take its new DID as
              // the connection's, so nothing more is asked of it there.
              const rotating = await connectToAcapy(acapy, ctx, ORG, token, "didexchange/1.1");

              // 1. ACA-Py rotates to a new did:peer:4 (long form, as ACA-Py makes it).
              const created = await acapy.admin<{ result: { did: string } }>(
                "POST",
                "/wallet/did/create",
                {
                  method: "did:peer:4",
                  options: { key_type: "ed25519" },
                },
              );
              const newDid = created.result.did;
              assert.match(newDid, /^did:peer:4zQm[^:]+:z/);
              await acapy.admin("POST", `/did-rotate/${rotating.theirs.connection_id}/rotate`, {
                to_did: newDid,
              });
              const moved = await waitFor("our connection on ACA-Py's new DID", async () => {
                const c = await ours(ctx, token, rotating.ours.id);
                return c.theirDid === newDid ? c : undefined;
              }, 15_000);
              assert.equal(moved.state, "completed");
              await pingAnswered(acapy, rotating.theirs.connection_id);

              // 2. Our endpoint moves to a relay: both connections get a new DID naming it.
              const front = relay(ctx.endpoint);
              try {
                await expectJson(
                  await ctx.call("PATCH", `/orgs/${ORG}/agents`, {
                    token: owner,
                    body: { agentEndpoint: front.url },
                  }),
                  200,
                );
                for (const conn of [didx, legacy]) {
                  const rotated = await waitFor("our connection on a new DID", async () => {
                    const c = await ours(ctx, token, conn.ours.id);
                    return c.did !== conn.ours.did ? c : undefined;
                  }, 15_000);
                  assert.match(rotated.did, /^did:peer:2\./);
                  const theirs = await waitFor("ACA-Py on our new DID", async () => {
                    const c = await acapy.admin<AcapyConnection>(
                      "GET",
                      `/connections/${conn.theirs.connection_id}`,
                    );
                    return c.their_did === rotated.did ? c : undefined;
                  }, 15_000);
                  assert.equal(theirs.state, "active");
                  const before = front.forwarded();
                  await pingAnswered(acapy, conn.theirs.connection_id);
                  assert.ok(
                    front.forwarded() > before,
                    "ACA-Py's ping came through the new endpoint",
                  );
                }
              } finally {
                await front.close();
              }

              // 3. We hang up: ACA-Py deletes its record of the connection.
              const hung = await expectJson(
                await ctx.call("POST", `/orgs/${ORG}/connections/${legacy.ours.id}/hangup`, {
                  token,
                }),
                200,
              );
              assert.equal(hung.state, "abandoned");
              await waitFor("ACA-Py's connection deleted", async () => {
                const r = await acapy.adminRaw(
                  "GET",
                  `/connections/${legacy.theirs.connection_id}`,
                );
                return r.status === 404;
              }, 15_000);
            },
          );
        },
        {},
        { pickPort: firstPortTaken(taken) },
      );
    } finally {
      taken.close();
    }
  },
});
