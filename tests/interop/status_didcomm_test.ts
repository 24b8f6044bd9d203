/**
 * JSON-LD credential status and issuer contexts with a real Credo issuer over DIDComm
 * (`tests/interop/credo_peer`): Credo signs credentials that carry a BitstringStatusListEntry and
 * an issuer vocabulary served on a loopback host (allowed by JSONLD_CONTEXT_ALLOW), and signs the
 * BitstringStatusListCredentials the test serves from that host. Revoked at issuance → the
 * exchange is abandoned (Credo gets the problem report); revoked later → `check-status` says so
 * and a real local webhook receiver gets `credential.status_changed`; with the list host down the
 * status is `unknown` (the context, kept in KV, is not fetched again); a list signed by another
 * key is never `valid`.
 */
import assert from "node:assert/strict";
import { credoInterop } from "./availability.ts";
import type { CredoIssuer } from "./credo_peer.ts";
import { receiveInvitation, withCredoIssuer } from "./holder_service.ts";
import type { ServedContext } from "../didcomm/helpers.ts";
import { waitFor } from "../support/wait.ts";
import { entry, listHost, unsignedListCredential } from "../status/lists.ts";
import { receiver, register } from "../webhooks/helpers.ts";

const ORG = "org-status-didcomm";
type Json = Record<string, unknown>;
const ISSUER_VOCAB = {
  "@context": {
    "@version": 1.1,
    "@protected": true,
    name: "https://schema.org/name",
    memberOf: "https://example.org/vocab#memberOf",
  },
};

/** Our exchange on `threadId` once it reaches `state` (or abandoned). */
function exchange(ctx: ServedContext, token: string, threadId: string, states: string[]) {
  return waitFor(`our exchange on ${threadId} in ${states}`, async () => {
    const r = await ctx.call("GET", `/orgs/${ORG}/credentials`, { token });
    const rec = (JSON.parse(await r.text()).data as Json[]).find((x) => x.threadId === threadId);
    return rec && states.includes(String(rec.state)) ? rec : undefined;
  }, 20_000);
}

Deno.test({
  ...credoInterop,
  name:
    "interop status: Credo's JSON-LD credentials with a Bitstring Status List entry and a loopback issuer context: revoked at issuance abandoned, revoked later on check-status with its event, host down unknown, another key never valid",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const host = listHost();
    const hooks = receiver();
    try {
      await withCredoIssuer(ORG, async (issuer: CredoIssuer, ctx: ServedContext) => {
        const token = await ctx.token({ [ORG]: ["holder"] });
        await register(ctx, ORG, hooks.hook);
        host.serveJson("/contexts/issuer/v1", ISSUER_VOCAB);
        const inv = await issuer.createInvitation("didexchange");
        await receiveInvitation(ctx, ORG, token, inv.invitationUrl);
        const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000);

        const listUrl = host.url("/lists/revocation");
        const publish = async (set: number[], path = "/lists/revocation", signer?: "other") => {
          const url = host.url(path);
          const unsigned = await unsignedListCredential({
            url,
            issuer: issuer.issuerDid,
            set,
            ttl: 1,
          });
          host.serveJson(path, await issuer.signCredential(unsigned, signer));
          return url;
        };
        const offerAndAccept = async (status: Json, states: string[]) => {
          const offer = await issuer.offerCredential({
            connectionId: theirs.id,
            contexts: [
              "https://www.w3.org/ns/credentials/status/v1",
              host.url("/contexts/issuer/v1"),
            ],
            credentialSubject: { name: "Alice", memberOf: "Example Club" },
            credentialStatus: status,
          });
          const offered = await exchange(ctx, token, offer.threadId, ["offer-received"]);
          const acc = await ctx.call("POST", "/credentials/accept-offer", {
            token,
            body: { credentialRecordId: offered.id },
          });
          assert.equal(acc.status, 200, await acc.text());
          return { offer, rec: await exchange(ctx, token, offer.threadId, states) };
        };
        const w3c = async (rec: Json) => {
          const id = (rec.credentials as Json[])[0]!.credentialRecordId;
          const r = await ctx.call("GET", `/orgs/${ORG}/w3c-credentials/${id}`, { token });
          assert.equal(r.status, 200);
          return await r.json() as Json;
        };

        // Valid: stored with the issuer context (fetched once under JSONLD_CONTEXT_ALLOW).
        await publish([5]);
        const ok = await offerAndAccept(entry(listUrl, 3), ["credential-received", "abandoned"]);
        assert.equal(ok.rec.state, "credential-received", String(ok.rec.errorMessage));
        const stored = await w3c(ok.rec);
        assert.equal((stored.status as Json).state, "valid");
        assert.deepEqual((stored.credential as Json).credentialStatus, entry(listUrl, 3));
        assert.ok((await ctx.kv.get(["jsonld_context", host.url("/contexts/issuer/v1")])).value);

        // Revoked at issuance: abandoned with the reason; Credo gets the problem report.
        const revoked = await offerAndAccept(entry(listUrl, 5), [
          "credential-received",
          "abandoned",
        ]);
        assert.equal(revoked.rec.state, "abandoned");
        assert.match(String(revoked.rec.errorMessage), /revoked/);
        // Credo's own exchange record took the problem report: abandoned, with our reason.
        const credos = await waitFor("Credo's exchange abandoned", async () => {
          const c = await issuer.credential(revoked.offer.credentialExchangeId);
          return c.state === "abandoned" ? c : undefined;
        });
        assert.match(String(credos.errorMessage), /revoked/);

        // Revoked later: check-status says so; the receiver gets credential.status_changed.
        await publish([3, 5]);
        const path = `/orgs/${ORG}/w3c-credentials/${stored.id}/check-status`;
        const checked = await ctx.call("POST", path, { token });
        assert.equal(checked.status, 200);
        assert.equal(((await checked.json()).status as Json).state, "revoked");
        const event = await waitFor(
          "credential.status_changed at the receiver",
          () =>
            hooks.got.map((g) => JSON.parse(g.body) as Json).find((e) =>
              e.type === "credential.status_changed"
            ),
        );
        assert.equal((event.data as Json).id, stored.id);
        assert.equal((event.data as Json).format, "ldp_vc");
        assert.equal(((event.data as Json).status as Json).state, "revoked");

        // A list signed by another key (Credo's other did:key) is never valid: stored as unknown.
        const forged = await publish([], "/lists/forged", "other");
        const other = await offerAndAccept(entry(forged, 0), ["credential-received", "abandoned"]);
        assert.equal(other.rec.state, "credential-received", String(other.rec.errorMessage));
        const otherStatus = (await w3c(other.rec)).status as Json;
        assert.equal(otherStatus.state, "unknown");
        assert.match(String(otherStatus.message), /does not verify/);

        // The list host down: unknown (and the kept context is not needed from it again).
        await host.down();
        const down = await ctx.call("POST", path, { token });
        assert.equal(down.status, 200);
        const downStatus = (await down.json()).status as Json;
        assert.equal(downStatus.state, "unknown");
        assert.match(String(downStatus.message), /could not be fetched/);
      }, {
        env: { JSONLD_CONTEXT_ALLOW: `${host.base}/contexts/` },
      });
    } finally {
      await host.close();
      await hooks.close();
    }
  },
});
