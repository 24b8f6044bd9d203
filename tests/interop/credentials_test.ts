/**
 * Interop of the holder credential exchange with a real Credo 0.6 issuer (Node.js subprocess):
 * over a connection this service made (DID Exchange 1.1, then Connections 1.0), Credo offers a
 * JSON-LD credential; this service accepts the offer, receives and verifies the credential, and
 * `POST /credentials/accept-credential` (20 times in parallel) returns one 200 with state `done`;
 * Credo receives exactly one ack and its own record reaches `done`. A credential whose proof Credo
 * alters in transit ends `abandoned` here, and Credo receives the problem report.
 *
 * Needs `bash tests/interop/setup.sh` (npm packages of the Credo peer); fails clearly without.
 */
import { credoInterop } from "./availability.ts";
import assert from "node:assert/strict";
import type { CredoIssuer } from "./credo_peer.ts";
import { type ServedContext, waitFor } from "../didcomm/helpers.ts";
import { receiveInvitation, withCredoIssuer } from "./holder_service.ts";
import { drainOutbox } from "../support/outbox.ts";

const ORG = "org-interop";
type Json = Record<string, unknown>;

/** Makes a connection from an invitation of the issuer; returns both sides' ids. */
async function connect(
  issuer: CredoIssuer,
  ctx: ServedContext,
  token: string,
  handshake: "didexchange" | "connections",
) {
  const inv = await issuer.createInvitation(handshake);
  const { created } = await receiveInvitation(ctx, ORG, token, inv.invitationUrl);
  const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000).catch(
    // Credo completes a Connections 1.0 connection only after our first message: use it anyway
    () => issuer.waitForConnection(inv.outOfBandId, "response-sent", 1_000),
  );
  return { ours: created.id, theirs: theirs.id };
}

/** Our exchange record on `threadId` once it is in `state` (fails early when abandoned). */
function ourRecord(ctx: ServedContext, token: string, threadId: string, state: string) {
  return waitFor(`our exchange on ${threadId} in ${state}`, async () => {
    const r = await ctx.call("GET", `/orgs/${ORG}/credentials`, { token });
    const list = JSON.parse(await r.text()) as { data: Json[] };
    const rec = list.data.find((x) => x.threadId === threadId);
    if (rec?.state === "abandoned" && state !== "abandoned") {
      throw new Error(`abandoned: ${rec.errorMessage}`);
    }
    return rec?.state === state ? rec : undefined;
  }, 15_000);
}

async function issueAndAccept(
  issuer: CredoIssuer,
  ctx: ServedContext,
  handshake: "didexchange" | "connections",
) {
  const token = await ctx.token({ [ORG]: ["holder"] });
  const { ours, theirs } = await connect(issuer, ctx, token, handshake);
  const t0 = performance.now();
  const offer = await issuer.offerCredential({ connectionId: theirs });
  const offered = await ourRecord(ctx, token, offer.threadId, "offer-received");
  assert.equal(offered.connectionId, ours);
  assert.deepEqual(offered.credentialAttributes, [
    { "mime-type": "text/plain", name: "name", value: "Alice" },
  ]);

  const acc = await ctx.call("POST", "/credentials/accept-offer", {
    token,
    body: { credentialRecordId: offered.id },
  });
  assert.equal(acc.status, 200, await acc.clone().text());
  assert.equal((await acc.json()).state, "request-sent");
  const received = await ourRecord(ctx, token, offer.threadId, "credential-received");

  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      ctx.call("POST", "/credentials/accept-credential", {
        token,
        body: { credentialRecordId: received.id },
      })),
  );
  assert.deepEqual(results.map((r) => r.status).sort(), [200, ...Array(19).fill(409)]);
  const done = await results.find((r) => r.status === 200)!.json();
  for (const r of results) if (!r.bodyUsed) await r.body?.cancel();
  assert.equal(done.state, "done");
  assert.deepEqual(done._tags, { state: "done", threadId: offer.threadId, connectionId: ours });

  const theirRecord = await issuer.waitForCredential(offer.credentialExchangeId, "done", 15_000);
  console.log(
    `${handshake}: offer → Credo done in ${Math.round(performance.now() - t0)} ms`,
  );
  assert.equal(theirRecord.state, "done");
  await drainOutbox(ctx.kv); // every message of ours was delivered: a second ack would be here
  const acks = (await issuer.messages()).filter((m) =>
    m.type === "https://didcomm.org/issue-credential/2.0/ack" && m.thid === offer.threadId
  );
  assert.equal(acks.length, 1, "Credo receives exactly one ack");

  const w3cId = (done.credentials as Json[])[0]!.credentialRecordId;
  const w3c = JSON.parse(
    await (await ctx.call("GET", `/orgs/${ORG}/w3c-credentials/${w3cId}`, { token })).text(),
  );
  assert.equal(w3c._tags.issuerId, issuer.issuerDid);
  assert.equal(w3c.credential.proof.type, "Ed25519Signature2018");
  return { token, theirs };
}

Deno.test({
  ...credoInterop,
  name:
    "interop: Credo offers a JSON-LD credential over DID Exchange; accepted, verified, acked once, done on both sides; a tampered proof is abandoned with a problem report",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      const { token, theirs } = await issueAndAccept(issuer, ctx, "didexchange");
      assert.deepEqual(await issuer.problemReports(), []);

      const offer = await issuer.offerCredential({ connectionId: theirs, tamper: "proof" });
      const offered = await ourRecord(ctx, token, offer.threadId, "offer-received");
      const acc = await ctx.call("POST", "/credentials/accept-offer", {
        token,
        body: { credentialRecordId: offered.id },
      });
      assert.equal(acc.status, 200);
      await acc.body?.cancel();
      const abandoned = await ourRecord(ctx, token, offer.threadId, "abandoned");
      assert.match(String(abandoned.errorMessage), /credential proof does not verify/);
      assert.deepEqual(abandoned.credentials, []);
      const report = await waitFor("problem report at Credo", async () =>
        (await issuer.problemReports()).find((p) => p.threadId === offer.threadId));
      assert.equal(report.code, "issuance-abandoned");
      const theirs2 = await issuer.waitForCredential(offer.credentialExchangeId, "abandoned");
      assert.match(String(theirs2.errorMessage), /issuance-abandoned/);
      const late = await ctx.call("POST", "/credentials/accept-credential", {
        token,
        body: { credentialRecordId: offered.id },
      });
      assert.equal(late.status, 409);
      await late.body?.cancel();
    }),
});

Deno.test({
  ...credoInterop,
  name:
    "interop: Credo offers a JSON-LD credential over Connections 1.0; accepted, verified, acked once, done on both sides",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      await issueAndAccept(issuer, ctx, "connections");
      assert.deepEqual(await issuer.problemReports(), []);
    }),
});

Deno.test({
  ...credoInterop,
  name:
    "interop: a 30 KB credential from Credo is accepted and done; one too large to store gets Credo a problem report",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCredoIssuer(ORG, async (issuer, ctx) => {
      const token = await ctx.token({ [ORG]: ["holder"] });
      const { theirs } = await connect(issuer, ctx, token, "didexchange");
      // 30 KB: the offer and our request (each as large) are kept in separate values.
      const big = "x".repeat(30_000);
      const offer = await issuer.offerCredential({
        connectionId: theirs,
        credentialSubject: { name: big },
      });
      const offered = await ourRecord(ctx, token, offer.threadId, "offer-received");
      const acc = await ctx.call("POST", "/credentials/accept-offer", {
        token,
        body: { credentialRecordId: offered.id },
      });
      assert.equal(acc.status, 200, await acc.clone().text());
      await acc.body?.cancel();
      const received = await ourRecord(ctx, token, offer.threadId, "credential-received");
      const done = await ctx.call("POST", "/credentials/accept-credential", {
        token,
        body: { credentialRecordId: received.id },
      });
      assert.equal(done.status, 200);
      await done.body?.cancel();
      await issuer.waitForCredential(offer.credentialExchangeId, "done", 15_000);

      // 45 KB (60 KB as base64 in the offer) does not fit the inbound message limit: Credo hears
      // why instead of waiting.
      const huge = await issuer.offerCredential({
        connectionId: theirs,
        credentialSubject: { name: "y".repeat(45_000) },
      });
      const report = await waitFor("problem report at Credo", async () =>
        (await issuer.problemReports()).find((p) => p.threadId === huge.threadId));
      assert.equal(report.code, "message-too-large");
      assert.match(String(report.description), /at most 57344 bytes/);
    }),
});
