/**
 * Interop of DID Rotate 1.0 (RFC 0794) with a real Credo 0.6 issuer, both roles:
 *
 * - we rotate: the org's `agentEndpoint` moves to a relay (a real HTTP server forwarding to our
 *   `/didcomm`); each completed connection gets a new did:peer:2 naming it, Credo acks, and from
 *   then on Credo sends through the relay;
 * - Credo rotates: we resolve its new DID, ack on the prior one, and answer its pings on the new;
 * - Credo hangs up: our connection ends `abandoned`.
 *
 * Needs `bash tests/interop/setup.sh` (npm packages of the Credo peer).
 */
import { credoInterop } from "./availability.ts";
import assert from "node:assert/strict";
import type { ConnectionView } from "../../src/didcomm/connections/record.ts";
import { resolveTarget } from "../../src/didcomm/resolve.ts";
import { localResolver } from "../support/local_resolver.ts";
import { type ServedContext, waitFor } from "../didcomm/helpers.ts";
import type { CredoIssuer } from "./credo_peer.ts";
import { receiveInvitation, withCredoIssuer } from "./holder_service.ts";
import { relay } from "../support/relay.ts";

const ORG = "org-rotate";

async function connection(ctx: ServedContext, token: string, id: string): Promise<ConnectionView> {
  const res = await ctx.call("GET", `/orgs/${ORG}/connections/${id}`, { token });
  return JSON.parse(await res.text()) as ConnectionView;
}

async function pingAnswered(issuer: CredoIssuer, credoConnectionId: string): Promise<void> {
  const ping = await issuer.trustPing(credoConnectionId);
  await waitFor(
    "ping response at Credo",
    async () => (await issuer.trustPings()).find((p) => p.threadId === ping.threadId),
  );
}

Deno.test({
  ...credoInterop,
  name:
    "interop: DID Rotate 1.0 with a real Credo issuer: our endpoint change, Credo's rotation, Credo's hangup",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const owner = await ctx.token({ [ORG]: ["owner"] });
      const inv = await issuer.createInvitation("didexchange");
      const { ours } = await receiveInvitation(ctx, ORG, token, inv.invitationUrl);
      const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000);
      assert.equal(theirs.theirDid, ours.did);
      // A Connections 1.0 connection too: its unqualified DID moves to a did:peer:2 (RFC 0793).
      const legacyInv = await issuer.createInvitation("connections");
      const legacy = await receiveInvitation(ctx, ORG, token, legacyInv.invitationUrl);
      const legacyTheirs = await issuer.waitForConnection(legacyInv.outOfBandId, "completed");
      assert.doesNotMatch(legacy.ours.did, /^did:peer:/);

      // 1. We rotate: the agent endpoint moves to a relay.
      const front = relay(ctx.endpoint);
      try {
        const t0 = performance.now();
        const patched = await ctx.call("PATCH", `/orgs/${ORG}/agents`, {
          token: owner,
          body: { agentEndpoint: front.url },
        });
        assert.equal(patched.status, 200, await patched.text());
        const rotated = await waitFor("our connection on a new DID", async () => {
          const c = await connection(ctx, token, ours.id);
          return c.did !== ours.did ? c : undefined;
        });
        assert.match(rotated.did, /^did:peer:2\./);
        assert.equal(rotated.state, "completed");
        const credoSide = await waitFor("Credo using our new DID", async () => {
          const c = await issuer.connection(theirs.id);
          return c.theirDid === rotated.did ? c : undefined;
        });
        console.log(`DID rotation to a new endpoint: ${Math.round(performance.now() - t0)} ms`);
        // The new DID names the relay; Credo's messages now arrive through it.
        assert.equal((await resolveTarget(localResolver, rotated.did)).endpoint, front.url);
        const before = front.forwarded();
        await pingAnswered(issuer, credoSide.id);
        assert.ok(front.forwarded() > before, "Credo's ping went through the new endpoint");
        const legacyRotated = await waitFor(
          "the Connections 1.0 connection on a did:peer",
          async () => {
            const c = await connection(ctx, token, legacy.ours.id);
            return c.did.startsWith("did:peer:2") ? c : undefined;
          },
        );
        await waitFor("Credo using it", async () => {
          const c = await issuer.connection(legacyTheirs.id);
          return c.theirDid === legacyRotated.did ? c : undefined;
        });
        const viaRelay = front.forwarded();
        await pingAnswered(issuer, legacyTheirs.id);
        assert.ok(front.forwarded() > viaRelay);
        // We hang up the Connections 1.0 one: Credo forgets our DID on it.
        const hung = await ctx.call("POST", `/orgs/${ORG}/connections/${legacy.ours.id}/hangup`, {
          token,
        });
        assert.equal(hung.status, 200);
        assert.equal(JSON.parse(await hung.text()).state, "abandoned");
        await waitFor("Credo's record without our DID", async () => {
          const c = await issuer.connection(legacyTheirs.id);
          return c.theirDid === null ? c : undefined;
        });
        const again = await ctx.call("POST", `/orgs/${ORG}/connections/${legacy.ours.id}/hangup`, {
          token,
        });
        assert.equal(again.status, 409);
        await again.body?.cancel();

        // 2. Credo rotates its own DID: we ack, and talk to the new one.
        const { newDid } = await issuer.rotate(theirs.id);
        const seen = await waitFor("our record with Credo's new DID", async () => {
          const c = await connection(ctx, token, ours.id);
          return c.theirDid === newDid ? c : undefined;
        });
        assert.equal(seen.state, "completed");
        await waitFor("Credo's rotation acked", async () => {
          const c = await issuer.connection(theirs.id);
          return c.did === newDid ? c : undefined;
        });
        await pingAnswered(issuer, theirs.id);
        assert.deepEqual(await issuer.problemReports(), []);

        // 3. Credo hangs up: the connection ends.
        await issuer.hangup(theirs.id);
        const ended = await waitFor("our connection abandoned", async () => {
          const c = await connection(ctx, token, ours.id);
          return c.state === "abandoned" ? c : undefined;
        });
        assert.match(ended.errorMessage ?? "", /hangup/);
      } finally {
        await front.close();
      }
    }),
});
