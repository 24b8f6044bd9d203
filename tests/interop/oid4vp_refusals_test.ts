/**
 * The OpenID4VP holder against a real Credo 0.6.3 verifier when things are not right: refused
 * requests (wrong signer, tampered, expired, mismatched response_uri, unsigned where a signature
 * is needed) name their rule and nothing reaches Credo's response endpoint; decline tells Credo
 * `access_denied`; no matching credential is 409 on accept with nothing sent; a second accept is
 * 409; a verifier that is down is 502 with the record unchanged, and the request is answered once
 * it is back. Org rules as for OpenID4VCI.
 */
import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import {
  accept,
  decline,
  getRequest,
  identityQuery,
  type Json,
  ORG,
  presentationEvents,
  receive,
  sentTo,
  vpTest,
} from "./oid4vp_support.ts";

const QUERY = identityQuery([["given_name"]]);

vpTest(
  "OID4VP refusals with a real Credo verifier: wrong signer, tampered, expired, mismatched response_uri, unsigned DID request — 400 naming the rule, nothing recorded or sent",
  async (s) => {
    const signed = await s.verifier.createRequest({ dcql: QUERY, signer: "did" });
    const byRef = (variant: string) =>
      `openid4vp://?client_id=${encodeURIComponent(signed.clientId!)}&request_uri=${
        encodeURIComponent(`${signed.variantsUrl}/${variant}`)
      }`;
    const unsigned = await s.verifier.createRequest({ dcql: QUERY, signer: "none" });
    const link = new URL(unsigned.authorizationRequest);
    const mismatched = new URL(link);
    mismatched.searchParams.set(
      "response_uri",
      `${s.verifier.verifierBaseUrl}/credo-verifier/authorize?session=someone-else`,
    );
    const unsignedDid = new URL(link);
    unsignedDid.searchParams.set("client_id", signed.clientId!);

    const cases: [string, string, string][] = [
      ["wrong signer", byRef("wrong-signer"), "request_signer"],
      ["tampered", byRef("tampered"), "request_signature"],
      ["expired", byRef("expired"), "request_expired"],
      ["mismatched response_uri", mismatched.href, "response_uri"],
      ["unsigned DID request", unsignedDid.href, "signed_request_required"],
    ];
    for (const [what, request, rule] of cases) {
      const body = await expectJson(await receive(s, request), 400);
      assert.match(String(body.message), new RegExp(`rule ${rule}\\b`), what);
      assert.equal((body.details as Json[])[0]?.path, rule, what);
      assert.match(String(body.message), /Nothing was sent to the verifier/);
    }
    // The untouched request object of the same session is accepted (the rules, not the
    // session, refused the others).
    const list = await expectJson(
      await s.ctx.call("GET", `/orgs/${ORG}/openid4vp/requests`, { token: s.token }),
      200,
    );
    assert.deepEqual(list.data, [], "no refused request is recorded");
    assert.deepEqual(await sentTo(s.verifier, signed.authorizationRequestId), []);
    assert.deepEqual(await sentTo(s.verifier, unsigned.authorizationRequestId), []);
    const ok = await expectJson(await receive(s, byRef("original")), 201);
    assert.equal(ok.state, "request-received");
  },
);

vpTest(
  "OID4VP with a real Credo verifier: decline tells Credo access_denied; no match is 409 with nothing sent; a second accept is 409; verifier down is 502 and the request is answered once it is back; org rules",
  async (s) => {
    // Decline: Credo receives error=access_denied (and answers 400, expecting a vp_token): its
    // recorder shows the form, its own session shows the answer.
    const d = await s.verifier.createRequest({ dcql: QUERY, signer: "did" });
    const dRec = await expectJson(await receive(s, d.authorizationRequest), 201);
    const declined = await expectJson(await decline(s, dRec.id as string), 200);
    assert.equal(declined.state, "declined");
    const told = await sentTo(s.verifier, d.authorizationRequestId);
    assert.equal(told.length, 1);
    assert.equal(told[0]!.error, "access_denied");
    assert.ok(!told[0]!.fields.includes("vp_token"));
    // Credo's own session took the answer: no longer waiting, no presentation (Credo 0.6.3 keeps
    // no error code; its state says it was answered without a vp_token).
    const session = await s.verifier.session(d.verificationSessionId);
    assert.equal(session.state, "Error", JSON.stringify(session));
    assert.match(String(session.errorMessage), /vp_token/);
    assert.equal(session.presentations, null);
    await expectJson(await accept(s, dRec.id as string), 409);

    // No stored credential answers the query: recorded with no match; accept is 409, nothing sent.
    const none = await s.verifier.createRequest({
      dcql: {
        credentials: [{ id: "diploma", format: "dc+sd-jwt", meta: { vct_values: ["urn:x"] } }],
      },
      signer: "did",
    });
    const nRec = await expectJson(await receive(s, none.authorizationRequest), 201);
    assert.deepEqual(nRec.queries, [{ id: "diploma", required: true, matches: [] }]);
    const unmet = await expectJson(await accept(s, nRec.id as string), 409);
    assert.match(String(unmet.message), /"diploma"/);
    assert.deepEqual(await sentTo(s.verifier, none.authorizationRequestId), []);
    assert.equal((await getRequest(s, nRec.id as string)).state, "request-received");

    // Verifier down: 502, the record unchanged; back up: answered.
    const r = await s.verifier.createRequest({ dcql: QUERY, signer: "did" });
    const rec = await expectJson(await receive(s, r.authorizationRequest), 201);
    await s.verifier.down();
    try {
      const down = await expectJson(await accept(s, rec.id as string), 502);
      assert.match(String(down.message), /could not be reached/);
    } finally {
      await s.verifier.up();
    }
    const still = await getRequest(s, rec.id as string);
    assert.deepEqual(still, rec, "the record is unchanged");
    const done = await expectJson(await accept(s, rec.id as string), 200);
    assert.equal(done.state, "done", String(done.errorMessage));
    assert.equal(
      (await s.verifier.waitForSession(r.verificationSessionId)).state,
      "ResponseVerified",
    );
    // A second accept: 409, nothing more sent.
    const again = await expectJson(await accept(s, rec.id as string), 409);
    assert.match(String(again.message), /"done"; it must be "request-received"/);
    assert.equal((await sentTo(s.verifier, r.authorizationRequestId)).length, 1);
    assert.deepEqual(
      (await presentationEvents(s.ctx.kv, rec.id as string)).map((e) => e.state),
      ["request-received", "done"],
    );

    // Org rules: another org's token 403; another org's record 404; an org without agent 409.
    const other = await s.ctx.token({ "org-other": ["holder"] });
    await expectJson(await receive(s, r.authorizationRequest, other), 403);
    await expectJson(
      await s.ctx.call("GET", `/orgs/org-other/openid4vp/requests/${rec.id}`, { token: other }),
      404,
    );
    await expectJson(
      await s.ctx.call("POST", `/orgs/org-other/openid4vp/requests/${rec.id}/decline`, {
        token: other,
      }),
      404,
    );
    const fresh = await s.verifier.createRequest({ dcql: QUERY, signer: "did" });
    const noAgent = await expectJson(
      await receive(s, fresh.authorizationRequest, other, "org-other"),
      409,
    );
    assert.match(String(noAgent.message), /no configured agent/);

    // The offers route tells a presentation request from a credential offer.
    const offer = await expectJson(
      await s.ctx.call("POST", `/orgs/${ORG}/openid4vc/offers`, {
        token: s.token,
        body: { credentialOffer: fresh.authorizationRequest },
      }),
      400,
    );
    assert.match(String(offer.message), /presentation request, not a credential offer/);
  },
);
