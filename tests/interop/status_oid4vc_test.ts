/**
 * SD-JWT VC status with a real Credo 0.6.3 OpenID4VCI issuer (`tests/interop/oid4vc_peer`): Credo
 * puts the `status.status_list` claim the peer's mapper gives into the credential it signs, and
 * the peer serves its Token Status Lists as `statuslist+jwt`s signed with the issuer's own key
 * (Credo's JwsService), behind the same relay as the issuer. A credential revoked at issuance
 * makes the offer `failed`; one revoked later is `revoked` on `check-status`, and a real local
 * webhook receiver gets `credential.status_changed`; with the list host down the status is
 * `unknown`; a list signed by another key under the issuer's kid is never `valid`.
 *
 * The service's clock runs ahead of the wall clock by `skew`, moved past a list's `ttl` instead
 * of waiting for it.
 */
import assert from "node:assert/strict";
import { interopOptions } from "./availability.ts";
import { startOid4vcIssuer } from "./oid4vc_peer.ts";
import { startRelay } from "./oid4vc_relay.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson } from "../support/context.ts";
import { waitFor } from "../support/wait.ts";
import { receiver, register } from "../webhooks/helpers.ts";

const PEER_DIR = new URL("./oid4vc_peer/", import.meta.url);
const ORG = "org-oid4vc-status";
type Json = Record<string, unknown>;

Deno.test({
  name:
    "OID4VCI status: Credo's SD-JWT VC with a Token Status List: revoked at issuance fails, revoked later shows on check-status with its event, host down is unknown, another key is never valid",
  ...interopOptions(PEER_DIR, "node_modules/@credo-ts/openid4vc/package.json"),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    let skew = 0;
    const relay = startRelay();
    const issuer = await startOid4vcIssuer({ publicOrigin: relay.origin });
    relay.setTarget(`http://127.0.0.1:${issuer.port}`);
    const ctx = await createTestContext({ now: () => Date.now() + skew });
    const hooks = receiver();
    ctx.services.dispatcher.start();
    try {
      await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
      await register(ctx, ORG, hooks.hook);
      const token = await ctx.token({ [ORG]: ["holder"] });
      const control = async (path: string, body: Json) => {
        const res = await fetch(`${issuer.controlUrl}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 200, await res.clone().text());
        return await res.json() as Json;
      };
      const list = await control("/status-lists", { ttl: 60 });
      const forged = await control("/status-lists", { ttl: 60, signer: "other" });
      const issue = async (status: { list: string; idx: number }) => {
        const offer = await issuer.createOffer({ byValue: true, status });
        const rec = await expectJson(
          await ctx.call("POST", `/orgs/${ORG}/openid4vc/offers`, {
            token,
            body: { credentialOffer: offer.offerUri },
          }),
          201,
        );
        return await expectJson(
          await ctx.call("POST", `/orgs/${ORG}/openid4vc/offers/${rec.id}/accept`, {
            token,
            body: {},
          }),
          200,
        );
      };
      const credential = async (id: string) =>
        await expectJson(
          await ctx.call("GET", `/orgs/${ORG}/sd-jwt-credentials/${id}`, { token }),
          200,
        );
      const checkStatus = async (id: string) =>
        (await expectJson(
          await ctx.call("POST", `/orgs/${ORG}/sd-jwt-credentials/${id}/check-status`, { token }),
          200,
        )).status as Json;

      // Valid at issuance; the claim is in what Credo signed.
      const done = await issue({ list: String(list.id), idx: 3 });
      assert.equal(done.state, "done", String(done.errorMessage));
      const id = (done.credentialIds as string[])[0]!;
      const stored = await credential(id);
      assert.deepEqual((stored.claims as Json).status, {
        status_list: { idx: 3, uri: list.uri },
      });
      assert.equal((stored.status as Json).state, "valid");

      // Revoked at issuance: the offer fails, nothing is stored.
      await control(`/status-lists/${list.id}/statuses`, { idx: 5, value: 1 });
      skew += 61_000;
      const refused = await issue({ list: String(list.id), idx: 5 });
      assert.equal(refused.state, "failed");
      assert.match(String(refused.errorMessage), /revoked/);
      assert.deepEqual(refused.credentialIds, []);

      // Revoked later: check-status says so, and the webhook receiver gets the event.
      await control(`/status-lists/${list.id}/statuses`, { idx: 3, value: 1 });
      skew += 61_000;
      assert.equal((await checkStatus(id)).state, "revoked");
      assert.equal(((await credential(id)).status as Json).state, "revoked");
      const event = await waitFor(
        "credential.status_changed at the receiver",
        () =>
          hooks.got.map((g) => JSON.parse(g.body) as Json).find((e) =>
            e.type === "credential.status_changed"
          ),
      );
      assert.deepEqual(event.data, {
        id,
        orgId: ORG,
        format: "dc+sd-jwt",
        status: (await credential(id)).status,
      });

      // Suspended (2), then the list host down: unknown.
      await control(`/status-lists/${list.id}/statuses`, { idx: 3, value: 2 });
      skew += 61_000;
      assert.equal((await checkStatus(id)).state, "suspended");
      await relay.down();
      skew += 61_000;
      const down = await checkStatus(id);
      assert.equal(down.state, "unknown");
      assert.match(String(down.message), /could not be fetched/);
      await relay.up();

      // A list signed by another key under the issuer's kid: stored, never valid.
      const other = await issue({ list: String(forged.id), idx: 0 });
      assert.equal(other.state, "done", String(other.errorMessage));
      const otherStatus = (await credential((other.credentialIds as string[])[0]!)).status as Json;
      assert.equal(otherStatus.state, "unknown");
      assert.match(String(otherStatus.message), /not signed by the issuer/);
    } finally {
      await ctx.close();
      await hooks.close();
      await issuer.close();
      await relay.close();
    }
  },
});
