/**
 * A JSON-LD credential (`ldp_vc`) from a real Credo 0.6.3 DIDComm issuer (Issue Credential 2.0,
 * Ed25519Signature2018), presented over OpenID4VP to the real Credo 0.6.3 verifier: the VP signed
 * by the org's did:key with challenge = nonce and domain = client identifier, verified by Credo.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { expectJson } from "../support/context.ts";
import { waitFor } from "../didcomm/helpers.ts";
import { credoInterop } from "./availability.ts";
import { receiveInvitation, withCredoIssuer } from "./holder_service.ts";
import { startOid4vpVerifier } from "./oid4vp_peer.ts";
import { vpInterop } from "./oid4vp_support.ts";

const ORG = "org-vp-ld";
type Json = Record<string, unknown>;

Deno.test({
  name:
    "OID4VP ldp_vc: a JSON-LD credential issued by the real Credo DIDComm issuer is presented to the real Credo verifier, which verifies it",
  ...vpInterop,
  ignore: vpInterop.ignore || credoInterop.ignore,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const inv = await issuer.createInvitation("didexchange");
      await receiveInvitation(ctx, ORG, token, inv.invitationUrl);
      const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000);
      const offer = await issuer.offerCredential({ connectionId: theirs.id });
      const record = (state: string) =>
        waitFor(`exchange ${state}`, async () => {
          const list = await expectJson(
            await ctx.call("GET", `/orgs/${ORG}/credentials`, { token }),
            200,
          );
          return (list.data as Json[]).find((x) =>
            x.threadId === offer.threadId && x.state === state
          );
        }, 15_000);
      const offered = await record("offer-received");
      await expectJson(
        await ctx.call("POST", "/credentials/accept-offer", {
          token,
          body: { credentialRecordId: offered.id },
        }),
        200,
      );
      const received = await record("credential-received");
      const done = await expectJson(
        await ctx.call("POST", "/credentials/accept-credential", {
          token,
          body: { credentialRecordId: received.id },
        }),
        200,
      );
      const w3cId = (done.credentials as Json[])[0]!.credentialRecordId;

      const verifier = await startOid4vpVerifier();
      try {
        const req = await verifier.createRequest({
          signer: "did",
          dcql: {
            credentials: [{
              id: "named",
              format: "ldp_vc",
              meta: { type_values: [["https://www.w3.org/2018/credentials#VerifiableCredential"]] },
              claims: [{ path: ["credentialSubject", "name"] }],
            }],
          },
        });
        const rec = await expectJson(
          await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
            token,
            body: { request: req.authorizationRequest },
          }),
          201,
        );
        const match = (rec.queries as { matches: Json[] }[])[0]!.matches[0]!;
        assert.equal(match.credentialId, w3cId);
        assert.equal(match.format, "ldp_vc");
        assert.ok(
          (match.disclosedClaims as unknown[][]).some((p) =>
            p.join(".") === "credentialSubject.name"
          ),
        );
        const answered = await expectJson(
          await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${rec.id}/accept`, {
            token,
            body: {},
          }),
          200,
        );
        assert.equal(answered.state, "done", String(answered.errorMessage));
        const session = await verifier.waitForSession(req.verificationSessionId);
        assert.equal(session.state, "ResponseVerified", String(session.errorMessage));
        const vp = session.presentations!.named![0]!.presentation as Json;
        // The presentation's proof answers this request: challenge = its nonce, domain = its
        // client identifier (read from Credo's own request object), proof purpose authentication.
        const requestObject = await (await fetch(`${req.variantsUrl}/original`)).text();
        const { nonce, client_id } = jose.decodeJwt(requestObject);
        const proof = vp.proof as Json;
        assert.equal(proof.challenge, nonce);
        assert.equal(proof.domain, client_id);
        assert.equal(proof.domain, req.clientId);
        assert.equal(proof.proofPurpose, "authentication");
        const vc = vp.verifiableCredential as Json[] | Json;
        const first = (Array.isArray(vc) ? vc[0] : vc) as Json;
        assert.equal((first.credentialSubject as Json).name, "Alice");
      } catch (err) {
        console.error("--- Credo verifier logs ---\n" + verifier.logs());
        throw err;
      } finally {
        await verifier.close();
      }
    }),
});
