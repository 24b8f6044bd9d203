/**
 * Interop of the OpenID4VCI holder with a real Credo 0.6.3 OpenID4VCI issuer (Node.js
 * subprocess, `tests/interop/oid4vc_peer`): three issuers (Ed25519 did:key, P-256 did:jwk,
 * P-256 did:key), offers by value and by reference, SD-JWT VCs with nested disclosures. The
 * issuer publishes a relay's origin as its own, so every call goes through a real local relay
 * that can alter the credential in transit or stop answering.
 *
 * Needs `bash tests/interop/setup.sh` (npm packages of the peer); fails clearly without under CI.
 */
import assert from "node:assert/strict";
import type { Oid4vcIssuerKind } from "./oid4vc_peer.ts";
import {
  accept,
  credentialCount,
  events,
  getCredential,
  getOffer,
  type Json,
  offerAndAccept,
  oid4vcTest,
  ORG,
  receive,
} from "./oid4vc_holder.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson } from "../support/context.ts";

export const offerToDoneMs: number[] = [];

oid4vcTest(
  "OID4VCI: each Credo issuer (Ed25519 did:key, P-256 did:jwk, P-256 did:key), by value and by reference: done, claims as issued",
  async (s) => {
    const kinds: Oid4vcIssuerKind[] = ["ed25519-did-key", "p256-did-jwk", "p256-did-key"];
    for (const kind of kinds) {
      for (const byValue of [true, false]) {
        const what = `${kind} ${byValue ? "by value" : "by reference"}`;
        const offer = await s.issuer.createOffer({ issuer: kind, byValue });
        assert.match(offer.offerUri, byValue ? /credential_offer=/ : /credential_offer_uri=/);
        const t0 = performance.now();
        const rec = await expectJson(await receive(s, offer.offerUri), 201);
        assert.equal(rec.state, "offer-received", what);
        assert.equal(rec.orgId, ORG);
        assert.equal(rec.credentialIssuer, offer.credentialIssuer);
        assert.deepEqual(rec.credentialConfigurationIds, [offer.credentialConfigurationId]);
        assert.equal(rec.txCodeRequired, false);
        assert.ok(
          !JSON.stringify(rec).includes(String(
            offer.offer.grants[
              "urn:ietf:params:oauth:grant-type:pre-authorized_code"
            ]?.["pre-authorized_code"],
          )),
          "the pre-authorized code is never shown",
        );

        const done = await expectJson(await accept(s, rec.id as string), 200);
        offerToDoneMs.push(performance.now() - t0);
        assert.equal(done.state, "done", `${what}: ${done.errorMessage}`);
        const ids = done.credentialIds as string[];
        assert.equal(ids.length, 1);
        await s.issuer.waitForSession(offer.issuanceSessionId, "Completed");

        const cred = await getCredential(s, ids[0]!);
        assert.equal(cred.offerId, rec.id);
        assert.equal(cred.vct, offer.vct);
        assert.equal(cred.issuer, offer.issuerDid);
        assert.match(String(cred.compact), /^ey[^~]+~.+~$/);
        const { iss, vct, iat, cnf, ...rest } = cred.claims as Json;
        assert.equal(iss, offer.issuerDid);
        assert.equal(vct, offer.vct);
        assert.equal(typeof iat, "number");
        assert.ok(cnf, "bound to the holder key");
        assert.deepEqual(rest, offer.claims, what);
        assert.ok(!JSON.stringify(cred.claims).includes("_sd"), "no SD-JWT machinery left");

        assert.deepEqual(
          (await events(s.ctx.kv, rec.id as string)).map((e) => [e.state, e.protocol]),
          [
            ["offer-received", "openid4vci"],
            ["done", "openid4vci"],
          ],
        );
      }
    }
    const sorted = [...offerToDoneMs].sort((a, b) => a - b);
    const timing = await s.issuer.holderTiming(6, "ed25519-did-key");
    console.log(
      `offer → done, this service: median ${
        sorted[Math.floor(sorted.length / 2)]!.toFixed(0)
      } ms ` +
        `(n=${sorted.length}, ${
          sorted.map((x) => x.toFixed(0)).join(", ")
        }); Credo's own holder on the same issuer: ` +
        `median ${timing.medianMs} ms (n=${timing.n}, ${timing.timingsMs.join(", ")})`,
    );
  },
);

oid4vcTest(
  "OID4VCI: offers Credo makes as draft 15 and drafts 11-14 sessions are accepted too",
  async (s) => {
    for (const version of ["v1.draft15", "v1.draft11-14"] as const) {
      const { offer, out: done } = await offerAndAccept(s, { version });
      assert.equal(done.state, "done", `${version}: ${done.errorMessage}`);
      const session = await s.issuer.waitForSession(offer.issuanceSessionId, "Completed");
      assert.equal(session.openId4VciVersion, version);
    }
  },
);

oid4vcTest(
  "OID4VCI: a second accept is 409; a spent offer is 502 invalid_grant and stays offer-received",
  async (s) => {
    const offer = await s.issuer.createOffer({ byValue: true });
    const first = await expectJson(await receive(s, offer.offerUri), 201);
    assert.equal((await expectJson(await accept(s, first.id as string), 200)).state, "done");
    const again = await expectJson(await accept(s, first.id as string), 409);
    assert.match(JSON.stringify(again), /done.*offer-received|offer-received.*done/);

    const spent = await expectJson(await receive(s, offer.offerUri), 201);
    const refused = await expectJson(await accept(s, spent.id as string), 502);
    assert.match(JSON.stringify(refused), /invalid_grant/);
    const after = await getOffer(s, spent.id as string);
    assert.equal(after.state, "offer-received");
    assert.equal(await credentialCount(s), 1);

    // A credential larger than one KV value (64 KiB) is stored in parts and read back whole.
    const portrait = "data:image/png;base64," + "iVBORw0KGgo".repeat(15_000);
    const { out: bigDone } = await offerAndAccept(s, {
      claims: { given_name: "Erika", portrait },
    });
    assert.equal(bigDone.state, "done", String(bigDone.errorMessage));
    const stored = await getCredential(s, (bigDone.credentialIds as string[])[0]!);
    assert.equal((stored.claims as Json).portrait, portrait);
    assert.ok(String(stored.compact).length > 200_000);
  },
);

oid4vcTest(
  "OID4VCI: an issuer that is down is 502 with the record unchanged; accepted once it is back",
  async (s) => {
    const offer = await s.issuer.createOffer();
    const rec = await expectJson(await receive(s, offer.offerUri), 201);
    await s.relay.down();
    const down = await expectJson(await accept(s, rec.id as string), 502);
    assert.match(JSON.stringify(down), /could not be reached/);
    const same = await getOffer(s, rec.id as string);
    assert.deepEqual(same, rec);
    await s.relay.up();
    assert.equal((await expectJson(await accept(s, rec.id as string), 200)).state, "done");

    // Receiving an offer from an issuer that is down is 502 too.
    const other = await s.issuer.createOffer();
    await s.relay.down();
    const r = await receive(s, other.offerUri);
    assert.equal(r.status, 502, await r.clone().text());
    await s.relay.up();
  },
);

oid4vcTest(
  "OID4VCI: a credential altered in transit (a disclosure, the signature) is failed, nothing stored",
  async (s) => {
    for (
      const [mode, rule] of [["flip-disclosure", /not referenced/], [
        "flip-signature",
        /signature/,
      ]] as const
    ) {
      const offer = await s.issuer.createOffer({ byValue: true });
      const rec = await expectJson(await receive(s, offer.offerUri), 201);
      s.relay.setMode(mode);
      const out = await expectJson(await accept(s, rec.id as string), 200);
      s.relay.setMode("pass");
      assert.equal(out.state, "failed", mode);
      assert.match(String(out.errorMessage), rule);
      assert.deepEqual(out.credentialIds, []);
      assert.equal(await credentialCount(s), 0, mode);
      await expectJson(await accept(s, rec.id as string), 409);
    }
    assert.equal(s.relay.tampered.length, 2);
  },
);

oid4vcTest(
  "OID4VCI: txCode, another org's ids are 404, non-members 403, an org without agent 409, a refused address 400",
  async (s) => {
    const offer = await s.issuer.createOffer({ txCode: true });
    const rec = await expectJson(await receive(s, offer.offerUri), 201);
    assert.equal(rec.txCodeRequired, true);
    await expectJson(await accept(s, rec.id as string), 400);
    const done = await expectJson(
      await accept(s, rec.id as string, { txCode: offer.txCode }),
      200,
    );
    assert.equal(done.state, "done");
    const plain = await expectJson(
      await receive(s, (await s.issuer.createOffer()).offerUri),
      201,
    );
    await expectJson(await accept(s, plain.id as string, { txCode: "1234" }), 400);

    const credId = (done.credentialIds as string[])[0]!;
    const other = "org-other";
    await configureAgent(s.ctx, other, "http://127.0.0.1:9/didcomm");
    const both = await s.ctx.token({ [ORG]: ["holder"], [other]: ["holder"] });
    for (
      const path of [
        `/orgs/${other}/openid4vc/offers/${rec.id}`,
        `/orgs/${other}/sd-jwt-credentials/${credId}`,
      ]
    ) {
      await expectJson(await s.ctx.call("GET", path, { token: both }), 404);
    }
    await expectJson(
      await s.ctx.call("POST", `/orgs/${other}/openid4vc/offers/${rec.id}/decline`, {
        token: both,
      }),
      404,
    );
    const stranger = await s.ctx.token({ [other]: ["holder"] });
    await expectJson(
      await s.ctx.call("GET", `/orgs/${ORG}/openid4vc/offers`, { token: stranger }),
      403,
    );
    await expectJson(
      await s.ctx.call("GET", `/orgs/${ORG}/sd-jwt-credentials`, { token: stranger }),
      403,
    );

    const noAgent = await s.ctx.token({ "org-bare": ["owner"] });
    const bare = await expectJson(await receive(s, offer.offerUri, "org-bare", noAgent), 409);
    assert.match(JSON.stringify(bare), /agent/);

    const declined = await expectJson(
      await s.ctx.call("POST", `/orgs/${ORG}/openid4vc/offers/${plain.id}/decline`, {
        token: s.token,
      }),
      200,
    );
    assert.equal(declined.state, "declined");
    await expectJson(await receive(s, "https://not-an-offer.example/"), 400);

    // The default outbound policy refuses loopback issuers: 400, not 502.
    const strict = await createTestContext({
      env: { OUTBOUND_ALLOW_PRIVATE: "false" },
      // agent.example is a public address; the issuer's 127.0.0.1 is not.
      build: {
        resolveHost: (h) => Promise.resolve(h === "agent.example" ? ["93.184.215.14"] : []),
      },
    });
    try {
      await configureAgent(strict, ORG, "https://agent.example/didcomm");
      const t = await strict.token({ [ORG]: ["holder"] });
      const r = await strict.call("POST", `/orgs/${ORG}/openid4vc/offers`, {
        token: t,
        body: { credentialOffer: (await s.issuer.createOffer()).offerUri },
      });
      assert.equal(r.status, 400, await r.clone().text());
    } finally {
      await strict.close();
    }
  },
);
