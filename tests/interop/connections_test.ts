/**
 * Interop with a real Credo 0.6 issuer (Node.js subprocess): it creates an invitation, this
 * service (a real HTTP server whose agent endpoint is its `/didcomm`) receives it through
 * `POST /orgs/{orgId}/connections/receive-invitation`, and the connection is `completed` on both
 * sides: once with DID Exchange 1.1, once with Connections 1.0 (OOB and legacy `?c_i=`).
 * Credo's trust ping gets a response.
 *
 * Needs `bash tests/interop/setup.sh` (npm packages of the Credo peer); fails clearly without.
 */
import { credoInterop } from "./availability.ts";
import assert from "node:assert/strict";
import type { CredoIssuer } from "./credo_peer.ts";
import { type ServedContext, waitFor } from "../didcomm/helpers.ts";
import { receiveInvitation, withCredoIssuer } from "./holder_service.ts";

const ORG = "org-interop";

async function connect(
  issuer: CredoIssuer,
  ctx: ServedContext,
  handshake: "didexchange" | "connections" | "connections-legacy",
) {
  const token = await ctx.token({ [ORG]: ["holder"] });
  const inv = await issuer.createInvitation(handshake);
  const t0 = performance.now();
  const { created, ours } = await receiveInvitation(ctx, ORG, token, inv.invitationUrl);
  assert.equal(created.state, "request-sent");
  assert.equal(created.role, "requester");
  const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000);
  const ms = Math.round(performance.now() - t0);
  return { created, ours, theirs, ms, token };
}

Deno.test({
  ...credoInterop,
  name:
    "interop: DID Exchange 1.1 with a real Credo issuer completes on both sides; its ping is answered",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      const { ours, theirs, ms, token } = await connect(issuer, ctx, "didexchange");
      console.log(`DID Exchange 1.1 with Credo: ${ms} ms to completed on both sides`);
      assert.equal(ours.protocol, "https://didcomm.org/didexchange/1.1");
      assert.match(ours.did, /^did:peer:2\./);
      assert.equal(ours.theirDid, theirs.did);
      assert.equal(theirs.theirDid, ours.did);
      assert.equal(ours.theirLabel, "Credo Issuer");
      assert.equal(theirs.theirLabel, "HolderAgent");

      const ping = await issuer.trustPing(theirs.id);
      const t0 = performance.now();
      const answered = await waitFor("ping response at Credo", async () =>
        (await issuer.trustPings()).find((p) => p.threadId === ping.threadId));
      console.log(`trust ping round trip: ${Math.round(performance.now() - t0)} ms`);
      assert.equal(answered.connectionId, theirs.id);
      assert.deepEqual(await issuer.problemReports(), []);

      const list = JSON.parse(
        await (await ctx.call("GET", `/orgs/${ORG}/connections`, { token })).text(),
      );
      assert.equal(list.data.length, 1);
      assert.equal(list.data[0].id, ours.id);
    }),
});

Deno.test({
  ...credoInterop,
  name:
    "interop: Connections 1.0 (out-of-band and legacy c_i) with a real Credo issuer completes on both sides",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      for (const handshake of ["connections", "connections-legacy"] as const) {
        const { ours, theirs, ms } = await connect(issuer, ctx, handshake);
        console.log(
          `Connections 1.0 (${handshake}) with Credo: ${ms} ms to completed on both sides`,
        );
        assert.equal(ours.protocol, "https://didcomm.org/connections/1.0");
        assert.match(theirs.protocol ?? "", /^https:\/\/didcomm.org\/connections\/1\./);
        assert.equal(ours.theirLabel, "Credo Issuer");
        const ping = await issuer.trustPing(theirs.id);
        await waitFor(
          "ping response at Credo",
          async () => (await issuer.trustPings()).find((p) => p.threadId === ping.threadId),
        );
      }
      assert.deepEqual(await issuer.problemReports(), []);
    }),
});
