/**
 * A credential bound to the org's P-256 key (issued over OpenID4VCI by a real Credo 0.6.3 issuer's
 * ES256-only configuration) is presented over OpenID4VP to a real Credo 0.6.3 verifier: the key
 * binding JWT is signed ES256 by that key, and Credo verifies it against the credential's `cnf`.
 */
import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import { accept, identityQuery, type Json, receive, vpTest } from "./oid4vp_support.ts";
import { issueToOrg, ORG } from "./oid4vp_support.ts";
import { getCredential } from "./oid4vc_holder.ts";

vpTest(
  "OID4VP: a credential bound to the org's P-256 key is presented with an ES256 key binding JWT that Credo verifies",
  async (s) => {
    const es256Id = await issueToOrg(s, { configuration: "IdentityCredentialES256" });
    const cred = await getCredential(s, es256Id, ORG);
    const cnf = (cred.claims as Json).cnf as Json;
    assert.match(String(cnf.kid), /^did:key:zDn/, "bound to the P-256 key");

    const req = await s.verifier.createRequest({
      dcql: identityQuery([["given_name"]]),
      signer: "did",
      responseMode: "direct_post",
    });
    const rec = await expectJson(await receive(s, req.authorizationRequest), 201);
    const matches = ((rec.queries as Json[])[0]!.matches as Json[]).map((m) => m.credentialId);
    assert.deepEqual(matches.sort(), [s.credentialId, es256Id].sort(), "both credentials match");
    const done = await expectJson(
      await accept(s, rec.id as string, { selection: { pid: es256Id } }),
      200,
    );
    assert.equal(done.state, "done", String(done.errorMessage));
    assert.deepEqual(done.presented, [{ queryId: "pid", credentialId: es256Id }]);
    const session = await s.verifier.waitForSession(req.verificationSessionId);
    assert.equal(session.state, "ResponseVerified", String(session.errorMessage));
    const p = session.presentations?.pid?.[0];
    assert.equal(
      ((p?.claims as Json).cnf as Json).kid,
      cnf.kid,
      "Credo saw the P-256 credential",
    );
    assert.equal(typeof (p?.kbJwt as Json).sd_hash, "string", "with a key binding JWT");
  },
);
