/**
 * DID Rotate 1.0 edge cases against the real test peer (real HTTP, real envelopes); the happy
 * paths of both roles run against a real Credo issuer in tests/interop/did_rotate_test.ts.
 */
import assert from "node:assert/strict";
import { DidRotateTypes } from "../../src/didcomm/connections/did_rotate_messages.ts";
import {
  didRotationHandler,
  ROTATE_BATCH,
  type RotateJob,
} from "../../src/didcomm/connections/rotate_ours.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";
import { createConnectionDid } from "../../src/didcomm/connections/connection_did.ts";
import { verkeyToBytes } from "../../src/crypto/mod.ts";
import type { ConnectionRecord } from "../../src/didcomm/connections/record.ts";
import { newMessageId } from "../../src/didcomm/messages.ts";
import { resolveTarget } from "../../src/didcomm/resolve.ts";
import { localResolver } from "../support/local_resolver.ts";
import { keys } from "../../src/kv/mod.ts";
import { expectJson } from "../support/context.ts";
import { configureAgent, type ServedContext, servedContext, waitFor } from "./helpers.ts";
import { startTestPeer, type TestPeer } from "./test_peer.ts";

const ORG = "org-a";

/** Receives an invitation of `peer` for ORG; returns the new connection's id. */
async function requestConnection(ctx: ServedContext, peer: TestPeer): Promise<string> {
  const token = await ctx.token({ [ORG]: ["member"] });
  const created = await expectJson(
    await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
      token,
      body: { invitationUrl: peer.invitationUrl(peer.invitation()) },
    }),
    201,
  );
  return String(created.id);
}

/** A served app with ORG's agent, a test peer, and a completed connection between them. */
async function connected(): Promise<{ ctx: ServedContext; peer: TestPeer; id: string }> {
  const ctx = await servedContext();
  const peer = await startTestPeer();
  ctx.services.dispatcher.start();
  await configureAgent(ctx, ORG, ctx.endpoint);
  const id = await requestConnection(ctx, peer);
  await waitFor(
    "completed",
    async () => (await record(ctx, id)).state === "completed" || undefined,
  );
  return { ctx, peer, id };
}

async function record(ctx: ServedContext, id: string): Promise<ConnectionRecord> {
  return (await ctx.kv.get<ConnectionRecord>(keys.connection(ORG, id))).value!;
}

async function patchEndpoint(ctx: ServedContext, endpoint: string): Promise<void> {
  const owner = await ctx.token({ [ORG]: ["owner"] });
  await expectJson(
    await ctx.call("PATCH", `/orgs/${ORG}/agents`, {
      token: owner,
      body: { agentEndpoint: endpoint },
    }),
    200,
  );
}

const rotates = (peer: TestPeer) =>
  peer.received.filter((r) => r.message["@type"] === DidRotateTypes.rotate);

Deno.test("DID rotate (observing): a to_did we cannot use gets the RFC's problem codes; nothing changes", async () => {
  const { ctx, peer, id } = await connected();
  try {
    const before = await record(ctx, id);
    const cases: [string, string][] = [
      ["did:web:example.com", "e.did.method_unsupported"],
      ["did:peer:2.Vnot-a-key", "e.did.unresolvable"],
      ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "e.did.doc_unsupported"],
    ];
    for (const [toDid, code] of cases) {
      const rotate = { "@type": DidRotateTypes.rotate, "@id": newMessageId(), to_did: toDid };
      assert.equal(await peer.send(rotate), 202);
      const report = await waitFor(`problem report for ${toDid}`, () =>
        Promise.resolve(
          peer.received.find((r) => r.message["~thread"]?.thid === rotate["@id"])?.message,
        ));
      assert.equal(report["@type"], DidRotateTypes.problemReport);
      assert.equal((report.description as { code: string }).code, code, toDid);
    }
    const after = await record(ctx, id);
    assert.equal(after.theirDid, before.theirDid);
    assert.deepEqual(after.their, before.their);

    // Hang-up: another org's member is refused, an unknown id is 404, then ours ends it.
    const stranger = await ctx.token({ "org-b": ["owner"] });
    const path = `/orgs/${ORG}/connections/${id}/hangup`;
    await expectJson(await ctx.call("POST", path, { token: stranger }), 403);
    const member = await ctx.token({ [ORG]: ["member"] });
    await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/connections/${crypto.randomUUID()}/hangup`, {
        token: member,
      }),
      404,
    );
    const ended = await expectJson(await ctx.call("POST", path, { token: member }), 200);
    assert.equal(ended.state, "abandoned");
    await peer.waitFor(DidRotateTypes.hangup);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("DID rotate (rotating): one rotate per change; a wrong-thread ack or a refusal keeps the DID; the right ack switches DID and key", async () => {
  const { ctx, peer, id } = await connected();
  try {
    const original = await record(ctx, id);

    // Refused: the pending rotation is dropped, the DID and key stay.
    await patchEndpoint(ctx, `${ctx.baseUrl}/didcomm?relay=1`);
    await waitFor("a rotate", () => Promise.resolve(rotates(peer)[0]));
    const first = rotates(peer)[0]!.message;
    const pending = (await record(ctx, id)).pendingRotation!;
    assert.equal(pending.thid, first["@id"]);
    assert.equal(pending.toDid, first.to_did);
    assert.notEqual(pending.verkey, original.ourVerkey);
    // The job again (as after a crash before its success was recorded) starts nothing new.
    const job = { payload: { orgId: ORG, endpoint: `${ctx.baseUrl}/didcomm?relay=1` } };
    assert.deepEqual(
      await didRotationHandler({ ...ctx.services, inboundPerMinute: 0 }).handle(
        job as OutboxMessage<RotateJob>,
        {
          signal: new AbortController().signal,
        },
      ),
      { ok: true },
    );
    assert.equal((await record(ctx, id)).pendingRotation?.thid, first["@id"]);
    assert.equal(rotates(peer).length, 1);

    assert.equal(
      await peer.send({
        "@type": DidRotateTypes.ack,
        "@id": newMessageId(),
        status: "OK",
        "~thread": { thid: "not-our-rotate" },
      }),
      202,
    );
    assert.equal(
      await peer.send({
        "@type": DidRotateTypes.problemReport,
        "@id": newMessageId(),
        "~thread": { pthid: first["@id"] },
        description: { en: "DID Unresolvable", code: "e.did.unresolvable" },
      }),
      202,
    );
    await waitFor(
      "pending rotation dropped",
      async () => (await record(ctx, id)).pendingRotation === undefined || undefined,
    );
    const refused = await record(ctx, id);
    assert.equal(refused.did, original.did);
    assert.equal(refused.ourVerkey, original.ourVerkey);

    // Accepted: after the ack our DID and sending key are the new ones.
    await patchEndpoint(ctx, `${ctx.baseUrl}/didcomm?relay=2`);
    await waitFor("a second rotate", () => Promise.resolve(rotates(peer)[1]));
    const second = rotates(peer)[1]!.message;
    assert.equal(
      await peer.send({
        "@type": DidRotateTypes.ack,
        "@id": newMessageId(),
        status: "OK",
        "~thread": { thid: second["@id"] },
      }),
      202,
    );
    const rotated = await waitFor("rotated", async () => {
      const r = await record(ctx, id);
      return r.did === second.to_did ? r : undefined;
    });
    assert.equal(rotated.pendingRotation, undefined);
    assert.deepEqual(rotated.previousDids, [original.did]);
    assert.equal(rotated.endpoint, `${ctx.baseUrl}/didcomm?relay=2`);
    // A ping to the new DID is answered from the new key.
    const target = await resolveTarget(localResolver, String(second.to_did));
    assert.equal(target.endpoint, `${ctx.baseUrl}/didcomm?relay=2`);
    const ping = { "@type": "https://didcomm.org/trust_ping/1.0/ping", "@id": newMessageId() };
    assert.equal(await peer.send(ping, target), 202);
    await waitFor(
      "ping response",
      () => Promise.resolve(peer.received.find((r) => r.message["~thread"]?.thid === ping["@id"])),
    );
    const answer = peer.received.find((r) => r.message["~thread"]?.thid === ping["@id"])!;
    assert.equal(answer.senderKey, rotated.ourVerkey);
    assert.notEqual(rotated.ourVerkey, original.ourVerkey);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("DID rotate: a connection whose handshake spans an endpoint change is rotated when it completes", async () => {
  const ctx = await servedContext();
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const peer = await startTestPeer({ beforeResponse: () => held });
  ctx.services.dispatcher.start();
  try {
    await configureAgent(ctx, ORG, ctx.endpoint);
    const id = await requestConnection(ctx, peer);
    await peer.waitFor("https://didcomm.org/didexchange/1.1/request");
    // The endpoint moves while the handshake waits for the response.
    await patchEndpoint(ctx, `${ctx.baseUrl}/didcomm?moved=1`);
    release();
    await waitFor(
      "completed",
      async () => (await record(ctx, id)).state === "completed" || undefined,
    );
    const rotate = await peer.waitFor(DidRotateTypes.rotate);
    const target = await resolveTarget(localResolver, String(rotate.to_did));
    assert.equal(target.endpoint, `${ctx.baseUrl}/didcomm?moved=1`);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("DID rotate (observing): a peer rotating again and again leaves a bounded record", async () => {
  const { ctx, peer, id } = await connected();
  try {
    for (let i = 0; i < 7; i++) {
      // Same key (the test peer has one), a new DID through a new endpoint each time.
      const toDid = await createConnectionDid(
        verkeyToBytes(peer.verkey),
        `${peer.endpoint}?n=${i}`,
      );
      const rotate = { "@type": DidRotateTypes.rotate, "@id": newMessageId(), to_did: toDid };
      assert.equal(await peer.send(rotate), 202);
      await waitFor(`ack ${i}`, () =>
        Promise.resolve(
          peer.received.find((r) => r.message["~thread"]?.thid === rotate["@id"])?.message,
        ));
      await waitFor(
        `record on ${i}`,
        async () => (await record(ctx, id)).theirDid === toDid || undefined,
      );
    }
    const r = await record(ctx, id);
    assert.equal(r.previousTheirDids?.length, 5);
    assert.ok(r.theirKeys.includes(peer.verkey), "the key it still sends from is accepted");
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("DID rotate: an org with more connections than one batch is rotated in follow-up jobs", async () => {
  const { ctx, peer, id } = await connected();
  try {
    // 449 more completed connections like the real one (same peer), written directly.
    const model = await record(ctx, id);
    for (let i = 0; i < 449; i += 50) {
      const op = ctx.kv.atomic();
      for (let j = i; j < Math.min(i + 50, 449); j++) {
        const copy = { ...model, id: crypto.randomUUID(), threadId: crypto.randomUUID() };
        op.set(keys.connection(ORG, copy.id), copy);
      }
      assert.ok((await op.commit()).ok);
    }
    await patchEndpoint(ctx, `${ctx.baseUrl}/didcomm?many=1`);
    await waitFor("every connection rotating", async () => {
      let pending = 0;
      for await (const e of ctx.kv.list<ConnectionRecord>({ prefix: keys.connectionPrefix(ORG) })) {
        if (e.value.pendingRotation) pending++;
      }
      return pending === 450 || undefined;
    }, 30_000);
    const jobs = [];
    for await (const e of ctx.kv.list<OutboxMessage>({ prefix: ["outbox"] })) {
      if (e.value.kind === "didcomm_rotate_dids") jobs.push(e.value);
    }
    assert.equal(jobs.length, Math.ceil(450 / ROTATE_BATCH));
    await waitFor(
      "450 rotate messages at the peer",
      () => Promise.resolve(rotates(peer).length >= 450 || undefined),
      30_000,
    );
    assert.equal(rotates(peer).length, 450);
  } finally {
    await peer.close();
    await ctx.close();
  }
});
