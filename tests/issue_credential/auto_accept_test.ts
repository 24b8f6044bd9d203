import assert from "node:assert/strict";
import { keys } from "../../src/kv/keys.ts";
import { verkeyToDidKey } from "../../src/crypto/ed25519.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import type { StoredExchange } from "../../src/issue_credential/record.ts";
import { expectJson } from "../support/context.ts";
import {
  attachmentOf,
  createCredentialContext,
  type CredentialContext,
  exchangeToCredentialReceived,
  issueMessage,
  offerMessage,
} from "./helpers.ts";

type Json = Record<string, unknown>;

async function recordOf(ctx: CredentialContext, thid: string) {
  const id = (await ctx.kv.get<string>(keys.credentialByThread(ctx.orgId, thid))).value!;
  return (await ctx.kv.get<StoredExchange>(keys.credential(ctx.orgId, id))).value!.record;
}

/** Lets the issuer answer every request the holder sent on `thid` with a signed credential. */
async function issueFor(ctx: CredentialContext, thid: string) {
  const sent = await ctx.flush();
  const req = sent.find((s) =>
    s.message["@type"].endsWith("/request-credential") &&
    (s.message["~thread"] as Json).thid === thid
  );
  assert.ok(req, "a request was sent");
  const detail = attachmentOf(req.message, "requests~attach") as { credential: Json };
  const vc = await signCredential(detail.credential, {
    keyPair: ctx.issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
  await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage(thid, vc));
}

Deno.test("auto-accept always: the offer is accepted and the credential acked without a person", async () => {
  const ctx = await createCredentialContext({ policy: "always" });
  try {
    const thid = crypto.randomUUID();
    await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
    assert.equal((await recordOf(ctx, thid)).state, "offer-received");
    await ctx.flush(); // the queued automatic step runs
    assert.equal((await recordOf(ctx, thid)).state, "request-sent");
    await issueFor(ctx, thid);
    assert.equal((await recordOf(ctx, thid)).state, "credential-received");
    const sent = await ctx.flush();
    assert.equal((await recordOf(ctx, thid)).state, "done");
    assert.equal(sent.filter((s) => s.message["@type"].endsWith("/ack")).length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("auto-accept contentApproved: offers wait for a person, verified credentials are acked", async () => {
  const ctx = await createCredentialContext({ policy: "contentApproved" });
  try {
    const { id, thid } = await exchangeToCredentialReceived(ctx);
    await ctx.flush();
    const rec = await recordOf(ctx, thid);
    assert.equal(rec.id, id);
    assert.equal(rec.state, "done");
    const other = crypto.randomUUID();
    await ctx.port.receive(
      ctx.orgId,
      ctx.connectionId,
      offerMessage(ctx.issuer.did, { thid: other }),
    );
    await ctx.flush();
    assert.equal((await recordOf(ctx, other)).state, "offer-received");
  } finally {
    await ctx.close();
  }
});

Deno.test("auto-accept never (default): the credential waits in credential-received", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid } = await exchangeToCredentialReceived(ctx);
    const sent = await ctx.flush();
    assert.equal((await recordOf(ctx, thid)).state, "credential-received");
    assert.equal(sent.filter((s) => s.message["@type"].endsWith("/ack")).length, 0);
  } finally {
    await ctx.close();
  }
});

Deno.test("accept-offer with bindSubjectDid binds credentialSubject.id to the org's did:key", async () => {
  const ctx = await createCredentialContext();
  try {
    const thid = crypto.randomUUID();
    await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
    const rec = await recordOf(ctx, thid);
    const token = await ctx.token({ [ctx.orgId]: ["holder"] });
    await expectJson(
      await ctx.call("POST", "/credentials/accept-offer", {
        token,
        body: { credentialRecordId: rec.id, bindSubjectDid: true },
      }),
      200,
    );
    const sent = await ctx.flush();
    const req = sent.find((s) => s.message["@type"].endsWith("/request-credential"))!;
    const detail = attachmentOf(req.message, "requests~attach") as { credential: Json };
    const agent = (await ctx.kv.get<{ verkey: string }>(keys.agent(ctx.orgId))).value!;
    assert.equal((detail.credential.credentialSubject as Json).id, verkeyToDidKey(agent.verkey));
    await issueFor(ctx, thid);
    assert.equal((await recordOf(ctx, thid)).state, "credential-received");
    const list = await expectJson(
      await ctx.call("GET", `/orgs/${ctx.orgId}/w3c-credentials`, { token }),
      200,
    );
    const w3c = (list.data as Json[])[0]!;
    assert.deepEqual((w3c._tags as Json).subjectIds, [verkeyToDidKey(agent.verkey)]);
  } finally {
    await ctx.close();
  }
});

Deno.test("an automatic step that finds the record already moved on is skipped, not retried", async () => {
  const ctx = await createCredentialContext({ policy: "always" });
  try {
    const thid = crypto.randomUUID();
    await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
    const rec = await recordOf(ctx, thid);
    await ctx.holder.declineOffer(ctx.orgId, rec.id); // a person was faster
    const sent = await ctx.flush();
    assert.equal((await recordOf(ctx, thid)).state, "declined");
    assert.equal(sent.filter((s) => s.message["@type"].endsWith("/request-credential")).length, 0);
    const pending = await Array.fromAsync(ctx.kv.list({ prefix: ["outbox_due"] }));
    assert.equal(pending.length, 0, "no step left to retry");
  } finally {
    await ctx.close();
  }
});
