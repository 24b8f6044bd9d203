/**
 * Interop of the OpenID4VP holder with a real Credo 0.6.3 verifier (`OpenId4VcVerifierModule`),
 * after a real Credo 0.6.3 issuer issued the org an SD-JWT VC over OpenID4VCI: unsigned
 * `direct_post`, DID-signed by reference (GET and POST), and `direct_post.jwt`; each time Credo's
 * own verification session ends verified and holds exactly the requested claims.
 *
 * Needs `bash tests/interop/setup.sh` (npm packages of the peer); fails clearly without under CI.
 */
import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import {
  accept,
  identityQuery,
  type Json,
  ORG,
  presentationEvents,
  receive,
  sentTo,
  type VpSetup,
  vpTest,
} from "./oid4vp_support.ts";

/** Claims Credo saw, minus the SD-JWT VC's plain ones (iss, vct, iat, cnf, issuing_country). */
function disclosedAtCredo(session: { presentations: Record<string, Json[]> | null }, q = "pid") {
  const p = session.presentations?.[q]?.[0];
  assert.ok(p, `Credo holds a presentation for ${q}`);
  const { iss: _i, vct: _v, iat: _t, cnf: _c, issuing_country: _ic, ...rest } = p.claims as Json;
  return { rest, kb: p.kbJwt as Json };
}

async function presentAndCheck(
  s: VpSetup,
  what: string,
  opts: { signer: "none" | "did"; responseMode: "direct_post" | "direct_post.jwt"; post?: boolean },
) {
  const req = await s.verifier.createRequest({
    dcql: identityQuery([["given_name"], ["address", "locality"]]),
    signer: opts.signer,
    responseMode: opts.responseMode,
  });
  let link = req.authorizationRequest;
  if (opts.post) {
    // The same request object of Credo, fetched with POST (Credo itself only serves GET).
    link = `openid4vp://?client_id=${encodeURIComponent(req.clientId!)}&request_uri=${
      encodeURIComponent(`${req.variantsUrl}/original`)
    }&request_uri_method=post`;
  }
  const rec = await expectJson(await receive(s, link), 201);
  assert.equal(rec.state, "request-received", what);
  assert.equal(rec.orgId, ORG);
  assert.equal(rec.responseMode, opts.responseMode);
  const verifier = rec.verifier as Json;
  assert.equal(verifier.name, "Credo Test Verifier");
  if (req.clientId) assert.equal(verifier.clientId, req.clientId);
  else assert.match(String(verifier.clientId), /^redirect_uri:http:\/\/127\.0\.0\.1:/);
  assert.deepEqual(rec.queries, [{
    id: "pid",
    required: true,
    matches: [{
      credentialId: s.credentialId,
      format: "dc+sd-jwt",
      disclosedClaims: [["given_name"], ["address", "locality"]],
    }],
  }]);
  assert.deepEqual(await sentTo(s.verifier, req.authorizationRequestId), [], "nothing sent yet");

  const done = await expectJson(await accept(s, rec.id as string), 200);
  assert.equal(done.state, "done", `${what}: ${done.errorMessage}`);
  assert.deepEqual(done.presented, [{ queryId: "pid", credentialId: s.credentialId }]);
  const session = await s.verifier.waitForSession(req.verificationSessionId);
  assert.equal(session.state, "ResponseVerified", `${what}: ${session.errorMessage}`);
  const { rest, kb } = disclosedAtCredo(session as never);
  assert.deepEqual(rest, { given_name: "Erika", address: { locality: "Koeln", country: "DE" } });
  for (const unrequested of ["family_name", "birthdate", "street_address"]) {
    assert.ok(!JSON.stringify(rest).includes(unrequested), `${what}: ${unrequested} not disclosed`);
  }
  assert.equal(kb.aud, req.clientId ?? verifier.clientId, "kb-jwt aud is the client identifier");
  assert.equal(typeof kb.sd_hash, "string");
  assert.equal(typeof kb.iat, "number");
  const sent = await sentTo(s.verifier, req.authorizationRequestId);
  assert.equal(sent.length, 1, "one answer");
  assert.deepEqual(
    sent[0]!.fields.sort(),
    opts.responseMode === "direct_post" ? ["state", "vp_token"] : ["response"],
  );
  assert.deepEqual(
    (await presentationEvents(s.ctx.kv, rec.id as string)).map((e) => [e.state, e.protocol]),
    [["request-received", "openid4vp"], ["done", "openid4vp"]],
  );
}

vpTest(
  "OID4VP with a real Credo verifier: unsigned direct_post, DID-signed by reference (GET and POST), direct_post.jwt — Credo verifies exactly the requested claims",
  async (s) => {
    await presentAndCheck(s, "unsigned direct_post", {
      signer: "none",
      responseMode: "direct_post",
    });
    await presentAndCheck(s, "DID-signed by reference", {
      signer: "did",
      responseMode: "direct_post",
    });
    await presentAndCheck(s, "DID-signed, request_uri_method=post", {
      signer: "did",
      responseMode: "direct_post",
      post: true,
    });
    await presentAndCheck(s, "direct_post.jwt", {
      signer: "did",
      responseMode: "direct_post.jwt",
    });
  },
);
