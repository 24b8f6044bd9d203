/**
 * Issue 26 against the real Credo 0.6.3 OpenID4VCI issuer (`tests/interop/oid4vc_peer`): an
 * ES256-only credential configuration (the proof signed ES256 by the org's P-256 key, `cnf` that
 * key), a batch of two, a credential whose `vct` is disclosable (refused), and deferred issuance
 * (Credo's `deferral` and deferred credential endpoint): polled to `done`, to `failed` when the
 * issuer denies it, and to `done` across a restart of the service on the same KV file.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import {
  accept,
  credentialCount,
  events,
  getCredential,
  getOffer,
  type Json,
  offerAndAccept,
  offerReaches,
  oid4vcTest,
  opts,
  ORG,
  type Setup,
  setup,
  teardown,
} from "./oid4vc_holder.ts";
import { waitFor } from "../didcomm/helpers.ts";
import { createTestContext, expectJson, randomSecretsKey } from "../support/context.ts";
import { DEFERRED_KIND } from "../../src/openid4vci/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";

/** The proofs of the holder's credential requests (decoded headers), in order. */
function proofHeaders(s: Setup): jose.ProtectedHeaderParameters[][] {
  return s.relay.posts.filter((p) => p.path.endsWith("/credential")).map((p) => {
    const body = JSON.parse(p.body) as { proofs?: { jwt: string[] } };
    return (body.proofs?.jwt ?? []).map((jwt) => jose.decodeProtectedHeader(jwt));
  });
}

oid4vcTest(
  "OID4VCI: an ES256-only configuration issues to the org's P-256 key: proof signed ES256, cnf that key, the same key next time, never shown",
  async (s) => {
    const cnfKids: string[] = [];
    for (const issuer of ["ed25519-did-key", "p256-did-jwk"] as const) {
      const { offer, out: done } = await offerAndAccept(s, {
        issuer,
        configuration: "IdentityCredentialES256",
      });
      assert.equal(done.state, "done", String(done.errorMessage));
      await s.issuer.waitForSession(offer.issuanceSessionId, "Completed");
      const [header] = proofHeaders(s).at(-1)!;
      assert.equal(header!.alg, "ES256");
      assert.equal(header!.typ, "openid4vci-proof+jwt");
      // did:key of a P-256 key: multicodec 0x1200 → base58btc "zDn".
      assert.match(String(header!.kid), /^did:key:zDn[1-9A-HJ-NP-Za-km-z]+#zDn/);
      const cred = await getCredential(s, (done.credentialIds as string[])[0]!);
      const cnf = (cred.claims as Json).cnf as Json;
      assert.equal(cnf.kid, header!.kid, "cnf names the key of the proof");
      cnfKids.push(String(cnf.kid));
    }
    assert.equal(cnfKids[0], cnfKids[1], "one P-256 key per agent, kept");

    // The key is stored sealed: no private scalar in KV in the clear, nor in any answer.
    const stored = [];
    for await (const e of s.ctx.kv.list<Json>({ prefix: ["agent_p256_key"] })) stored.push(e);
    assert.equal(stored.length, 1);
    const rec = stored[0]!.value;
    assert.deepEqual(Object.keys(rec).sort(), [
      "agentId",
      "createdAt",
      "orgId",
      "publicJwk",
      "sealedD",
    ]);
    assert.equal((rec.publicJwk as Json).d, undefined);
    const agent = await s.ctx.call("GET", `/orgs/${ORG}/agents`, {
      token: await s.ctx.token({ [ORG]: ["owner"] }),
    });
    assert.ok(!(await agent.text()).includes(String(rec.sealedD)));

    // An EdDSA-capable configuration still gets the Ed25519 key.
    assert.equal((await offerAndAccept(s)).out.state, "done");
    assert.equal(proofHeaders(s).at(-1)![0]!.alg, "EdDSA");
  },
);

oid4vcTest(
  "OID4VCI: a batch of two arrives whole: two proofs, both credentials verified and stored",
  async (s) => {
    const { rec, out: done } = await offerAndAccept(s, { issuer: "ed25519-batch" });
    assert.equal(done.state, "done", String(done.errorMessage));
    assert.equal(proofHeaders(s).at(-1)!.length, 2, "one proof per credential of the batch");
    const ids = done.credentialIds as string[];
    assert.equal(ids.length, 2);
    const creds = await Promise.all(ids.map((id) => getCredential(s, id)));
    assert.notEqual(creds[0]!.compact, creds[1]!.compact);
    for (const c of creds) {
      assert.equal(c.offerId, rec.id);
      assert.equal((c.claims as Json).given_name, "Erika");
    }
    assert.equal(await credentialCount(s), 2);

    // One bad credential of a batch, first or last, refuses the whole batch: nothing stored.
    for (const [which, n] of [["first", 1], ["last", 2]] as const) {
      s.relay.setMode("flip-signature", which);
      const { out: failed } = await offerAndAccept(s, { issuer: "ed25519-batch" });
      s.relay.setMode("pass");
      assert.equal(failed.state, "failed", `the ${which} credential altered`);
      assert.match(String(failed.errorMessage), new RegExp(`credential ${n} of 2.*signature`));
      assert.equal(await credentialCount(s), 2);
    }
  },
);

oid4vcTest(
  "OID4VCI: a credential whose vct Credo made disclosable is refused: failed, naming vct, nothing stored",
  async (s) => {
    const { offer, rec, out } = await offerAndAccept(s, {
      disclosureFrame: { _sd: ["vct", "given_name", "family_name"] },
    });
    await s.issuer.waitForSession(offer.issuanceSessionId, "Completed");
    assert.equal(out.state, "failed");
    assert.match(String(out.errorMessage), /vct is selectively disclosable/);
    assert.deepEqual(out.credentialIds, []);
    assert.equal(await credentialCount(s), 0);
    assert.deepEqual((await events(s.ctx.kv, rec.id as string)).map((e) => e.state), [
      "offer-received",
      "failed",
    ]);
  },
);

/** Waits until the peer has answered `n` polls of the session's deferred transaction. */
const polled = (s: Setup, session: string, n: number) =>
  waitFor(`${n} deferred polls`, async () => {
    const t = (await s.issuer.deferred(session)).transactions[0];
    return (t?.polls ?? 0) >= n;
  });

oid4vcTest(
  "OID4VCI: deferred issuance: accept is deferred, the service polls until the credential arrives (done) or the issuer denies it (failed)",
  async (s) => {
    s.ctx.services.dispatcher.start();
    const { offer, rec, out: deferred } = await offerAndAccept(s, { deferred: { interval: 1 } });
    assert.equal(deferred.state, "deferred");
    assert.deepEqual(deferred.credentialIds, []);
    await expectJson(await accept(s, rec.id as string), 409);
    await polled(s, offer.issuanceSessionId, 2); // pending twice: polled again each time
    assert.equal((await getOffer(s, rec.id as string)).state, "deferred");

    await s.issuer.deferred(offer.issuanceSessionId, "issue");
    const done = await offerReaches(s, rec.id as string, ["done"]);
    const ids = done.credentialIds as string[];
    assert.equal(ids.length, 1);
    const cred = await getCredential(s, ids[0]!);
    assert.equal((cred.claims as Json).given_name, "Erika");
    await s.issuer.waitForSession(offer.issuanceSessionId, "Completed");
    assert.deepEqual((await events(s.ctx.kv, rec.id as string)).map((e) => e.state), [
      "offer-received",
      "deferred",
      "done",
    ]);

    const denied = await offerAndAccept(s, { deferred: { interval: 1 } });
    assert.equal(denied.out.state, "deferred");
    await s.issuer.deferred(denied.offer.issuanceSessionId, "deny");
    const failed = await offerReaches(s, denied.rec.id as string, ["failed"]);
    assert.match(String(failed.errorMessage), /credential_request_denied/);
    assert.equal(await credentialCount(s), 1);
  },
);

Deno.test({
  name:
    "OID4VCI: a deferred issuance survives a restart: the poll is in KV, a new process on the same file finishes it",
  ...opts,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const kvPath = `${dir}/kv.sqlite`;
    const env = { SECRETS_KEY: randomSecretsKey() };
    const s = await setup({ kvPath, env });
    try {
      const { offer, rec, out } = await offerAndAccept(s, { deferred: { interval: 1 } });
      assert.equal(out.state, "deferred");
      await s.ctx.close(); // the first process ends before any poll
      const polls: string[] = [];
      const restarted = await createTestContext({ kvPath, env, idp: s.ctx.idp });
      s.ctx = restarted;
      for await (const e of restarted.kv.list<OutboxMessage>({ prefix: ["outbox"] })) {
        if (e.value.kind === DEFERRED_KIND && e.value.status === "pending") polls.push(e.value.id);
      }
      assert.equal(polls.length, 1, "one poll is scheduled in KV");
      await s.issuer.deferred(offer.issuanceSessionId, "issue");
      restarted.services.dispatcher.start();
      const done = await offerReaches(s, rec.id as string, ["done"]);
      assert.equal((done.credentialIds as string[]).length, 1);
    } finally {
      await teardown(s);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

oid4vcTest(
  "OID4VCI: a deferred issuance outlives its access token: renewed with the refresh token, then done; without one, failed",
  async (s) => {
    s.ctx.services.dispatcher.start();
    const { offer, rec, out } = await offerAndAccept(s, {
      deferred: { interval: 3 },
      refreshTokens: true,
    });
    assert.equal(out.state, "deferred");
    await polled(s, offer.issuanceSessionId, 1); // at 3 s: the 2 s token was renewed first
    await s.issuer.deferred(offer.issuanceSessionId, "issue");
    const done = await offerReaches(s, rec.id as string, ["done", "failed"], 20_000);
    assert.equal(done.state, "done", String(done.errorMessage));
    const refreshes = s.relay.posts.filter((p) =>
      p.path.endsWith("/token") && p.body.includes("grant_type=refresh_token")
    );
    assert.ok(refreshes.length >= 1, "the access token was renewed");

    const plain = await offerAndAccept(s, { deferred: { interval: 3 } });
    assert.equal(plain.out.state, "deferred");
    const failed = await offerReaches(s, plain.rec.id as string, ["failed"], 20_000);
    assert.match(String(failed.errorMessage), /did not deliver the deferred credential/);
  },
  {},
  { accessTokenSeconds: 2 },
);
