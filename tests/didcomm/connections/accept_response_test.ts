import assert from "node:assert/strict";
import { acceptResponse } from "../../../src/didcomm/connections/accept_response.ts";
import { createConnectionDid } from "../../../src/didcomm/connections/connection_did.ts";
import { localResolver } from "../../support/local_resolver.ts";
import type { ConnectionRecord } from "../../../src/didcomm/connections/record.ts";
import { generateEd25519KeyPair, verkeyToDidKey } from "../../../src/crypto/ed25519.ts";
import { DidCommProblem } from "../../../src/didcomm/problem_report.ts";
import { resolveDidDocument } from "../../../src/didcomm/resolve.ts";

const NOW = Date.parse("2026-01-02T03:04:05.000Z");

function requestSent(): ConnectionRecord {
  return {
    id: "c1",
    orgId: "org-a",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    state: "request-sent",
    role: "requester",
    did: "did:peer:2.ours",
    theirDid: null,
    theirLabel: "Peer",
    outOfBandId: "oob-1",
    threadId: "thread-1",
    protocol: "https://didcomm.org/didexchange/1.1",
    invitationId: "inv-1",
    invitationKeys: ["inviteKey"],
    ourKeyId: "k1",
    ourVerkey: "ourVerkey",
    their: { recipientKeys: ["inviteKey"], routingKeys: [], endpoint: "http://old.example" },
    theirKeys: [],
  };
}

Deno.test("acceptResponse: a response sent with a key of their DID document completes the connection with its service", async () => {
  const kp = await generateEd25519KeyPair();
  const did = await createConnectionDid(kp.publicKey, "http://peer.example/didcomm");
  const doc = await resolveDidDocument(localResolver, did);
  const next = acceptResponse(requestSent(), did, doc, kp.verkey, "wrong sender", NOW);
  assert.equal(next.state, "completed");
  assert.equal(next.theirDid, did);
  assert.deepEqual(next.their, {
    recipientKeys: [kp.verkey],
    routingKeys: [],
    endpoint: "http://peer.example/didcomm",
  });
  assert.deepEqual(next.theirKeys, [kp.verkey]);
  assert.equal(next.updatedAt, "2026-01-02T03:04:05.000Z");
  assert.equal(next.invitationId, "inv-1", "the rest of the record is kept");
});

Deno.test("acceptResponse: another sender key, no sender key, or a document without a DIDComm service is response_not_accepted", async () => {
  const kp = await generateEd25519KeyPair();
  const other = await generateEd25519KeyPair();
  const did = await createConnectionDid(kp.publicKey, "http://peer.example/didcomm");
  const doc = await resolveDidDocument(localResolver, did);
  for (const sender of [other.verkey, null]) {
    assert.throws(
      () => acceptResponse(requestSent(), did, doc, sender, "not sent with their key", NOW),
      (err) =>
        err instanceof DidCommProblem && err.code === "response_not_accepted" &&
        err.message === "not sent with their key",
    );
  }
  const keyDid = verkeyToDidKey(kp.verkey);
  const keyDoc = await resolveDidDocument(localResolver, keyDid);
  assert.throws(
    () => acceptResponse(requestSent(), keyDid, keyDoc, kp.verkey, "wrong sender", NOW),
    (err) =>
      err instanceof DidCommProblem && err.code === "response_not_accepted" &&
      /no DIDComm v1 service/.test(err.message),
  );
});
