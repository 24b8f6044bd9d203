/**
 * The W3C Data Integrity vectors through the service's receiving path: a real DIDComm peer
 * (envelopes over HTTP to `POST /didcomm`) offers each vector's credential with `proofType`
 * `DataIntegrityProof` and its cryptosuite, the service requests it, the peer issues the vector
 * as published, the exchange reaches `credential-received` and, on accept, `done` (the peer gets
 * the ack), and the stored credential is a W3C credential like any other. The same vector with
 * one changed byte abandons its exchange with the reason (a problem report to the peer, nothing
 * stored); so does an employment vector, whose DID issuer did not sign it.
 */
import assert from "node:assert/strict";
import type { DidCommMessage } from "../../src/didcomm/mod.ts";
import { configureAgent, type ServedContext, servedContext } from "../didcomm/helpers.ts";
import { startTestPeer, type TestPeer } from "../didcomm/test_peer.ts";
import { expectJson } from "../support/context.ts";
import { waitFor } from "../support/wait.ts";
import { issueMessage, offerMessage } from "./helpers.ts";
import { jsonToBase64 } from "../../src/didcomm/mod.ts";
import {
  changeOneByte,
  EMPLOY_VECTOR_FILES,
  keepVectorContexts,
  VECTOR_CONTEXT_ALLOW,
  VECTOR_FILES,
  vectorText,
} from "../credentials/jsonld/di_keys.ts";

const ORG = "org-di";
const V2 = "https://didcomm.org/issue-credential/2.0";
type Json = Record<string, unknown>;

/** A Credo-shaped offer of `credential` asking for a DataIntegrityProof of `cryptosuite`. */
function diOffer(thid: string, credential: Json, cryptosuite: string): DidCommMessage {
  const offer = offerMessage(String(credential.issuer), { thid, credential });
  const attachment = (offer["offers~attach"] as { data: { base64: string } }[])[0]!;
  attachment.data.base64 = jsonToBase64({
    credential,
    options: { proofType: "DataIntegrityProof", cryptosuite, proofPurpose: "assertionMethod" },
  });
  return offer;
}

interface Setup {
  ctx: ServedContext;
  peer: TestPeer;
  token: string;
}

async function connected(): Promise<Setup> {
  const ctx = await servedContext({ env: { JSONLD_CONTEXT_ALLOW: VECTOR_CONTEXT_ALLOW } });
  const peer = await startTestPeer();
  try {
    await keepVectorContexts(ctx.kv);
    ctx.services.dispatcher.start();
    await configureAgent(ctx, ORG, ctx.endpoint);
    const token = await ctx.token({ [ORG]: ["owner"] });
    const created = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
        token,
        body: { invitation: peer.invitation() },
      }),
      201,
    );
    await waitFor("connection completed", async () => {
      const c = await expectJson(
        await ctx.call("GET", `/orgs/${ORG}/connections/${created.id}`, { token }),
        200,
      );
      return c.state === "completed";
    });
    return { ctx, peer, token };
  } catch (err) {
    await peer.close();
    await ctx.close();
    throw err;
  }
}

async function recordOn(s: Setup, thid: string, state: string): Promise<Json> {
  return await waitFor(`record on ${thid} in ${state}`, async () => {
    const list = await expectJson(
      await s.ctx.call("GET", `/orgs/${ORG}/credentials`, { token: s.token }),
      200,
    );
    return (list.data as Json[]).find((r) => r.threadId === thid && r.state === state);
  });
}

const fromPeer = (s: Setup, thid: string, type: string) =>
  waitFor(
    `${type} on ${thid}`,
    () =>
      s.peer.received.find((r) =>
        r.message["@type"] === `${V2}/${type}` &&
        (r.message["~thread"] as Json | undefined)?.thid === thid
      )?.message,
  );

/** Offer, accept-offer, the request at the peer, then `credential` issued on the thread. */
async function exchange(s: Setup, offered: Json, issued: Json): Promise<string> {
  const thid = crypto.randomUUID();
  const proof = issued.proof as Json;
  assert.equal(await s.peer.send(diOffer(thid, offered, String(proof.cryptosuite))), 202);
  const record = await recordOn(s, thid, "offer-received");
  await expectJson(
    await s.ctx.call("POST", "/credentials/accept-offer", {
      token: s.token,
      body: { credentialRecordId: record.id },
    }),
    200,
  );
  await fromPeer(s, thid, "request-credential");
  assert.equal(await s.peer.send(issueMessage(thid, issued)), 202);
  return thid;
}

const unsigned = (credential: Json) => {
  const { proof: _proof, ...rest } = credential;
  return rest;
};

Deno.test("DIDComm: each W3C Data Integrity vector is received, stored and acknowledged; one changed byte abandons the exchange", async () => {
  const s = await connected();
  try {
    for (const [name, file] of Object.entries(VECTOR_FILES)) {
      const text = vectorText(file);
      const vc = JSON.parse(text) as Json;
      const thid = await exchange(s, unsigned(vc), vc);
      const received = await recordOn(s, thid, "credential-received");
      const accepted = await expectJson(
        await s.ctx.call("POST", "/credentials/accept-credential", {
          token: s.token,
          body: { credentialRecordId: received.id },
        }),
        200,
      );
      assert.equal(accepted.state, "done", name);
      assert.equal((await fromPeer(s, thid, "ack")).status, "OK");
      const [link] = received.credentials as Json[];
      const stored = await expectJson(
        await s.ctx.call("GET", `/orgs/${ORG}/w3c-credentials/${link!.credentialRecordId}`, {
          token: s.token,
        }),
        200,
      );
      assert.deepEqual(stored.credential, vc, `${name}: stored as received`);
      assert.deepEqual(stored._tags, {
        claimFormat: "ldp_vc",
        issuerId: "https://vc.example/issuers/5678",
        subjectIds: ["did:example:abcdefgh"],
        contexts: [
          "https://www.w3.org/ns/credentials/v2",
          "https://www.w3.org/ns/credentials/examples/v2",
        ],
        types: ["VerifiableCredential", "AlumniCredential"],
        proofTypes: ["DataIntegrityProof"],
        givenId: "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
      });
      assert.equal((stored.status as Json).state, "unknown", "no credentialStatus");

      // The same credential with one byte changed in its claims: refused, nothing stored.
      const tampered = JSON.parse(changeOneByte(text, "The School of Examples")) as Json;
      const bad = await exchange(s, unsigned(tampered), tampered);
      const abandoned = await recordOn(s, bad, "abandoned");
      assert.match(
        String(abandoned.errorMessage),
        /credential proof does not verify \(.*Invalid signature/,
      );
      const report = await fromPeer(s, bad, "problem-report");
      assert.equal((report.description as Json).code, "issuance-abandoned");
      assert.deepEqual(abandoned.credentials, []);
    }
    const list = await expectJson(
      await s.ctx.call("GET", `/orgs/${ORG}/w3c-credentials`, { token: s.token }),
      200,
    );
    assert.equal((list.data as Json[]).length, 3, "one per vector, none of the tampered ones");
  } finally {
    await s.peer.close();
    await s.ctx.close();
  }
});

Deno.test("DIDComm: an employment vector (a DID issuer that did not sign it) abandons its exchange naming the issuer rule", async () => {
  const s = await connected();
  try {
    const vc = JSON.parse(vectorText(EMPLOY_VECTOR_FILES["ecdsa-rdfc-2019 P-384"])) as Json;
    const thid = await exchange(s, unsigned(vc), vc);
    const abandoned = await recordOn(s, thid, "abandoned");
    assert.match(
      String(abandoned.errorMessage),
      /issuer must match the verification method controller: the issuer did:key:zDnaegE6/,
    );
    await fromPeer(s, thid, "problem-report");
  } finally {
    await s.peer.close();
    await s.ctx.close();
  }
});
