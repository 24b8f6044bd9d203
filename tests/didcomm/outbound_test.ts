import assert from "node:assert/strict";
import { generateEd25519KeyPair } from "../../src/crypto/ed25519.ts";
import { DIDCOMM_KIND, DIDCOMM_SCHEDULE } from "../../src/didcomm/outbound.ts";
import { AppError } from "../../src/base/mod.ts";
import { atomicUpdate } from "../../src/kv/mod.ts";
import { keys } from "../../src/kv/keys.ts";
import type { OutboxMessage } from "../../src/outbox/outbox.ts";
import type { WebhookEvent } from "../../src/webhooks/events.ts";
import { expectJson } from "../support/context.ts";
import { freePort } from "../support/service_process.ts";
import {
  configureAgent,
  invitationTo,
  type ServedContext,
  servedContext,
  waitFor,
} from "./helpers.ts";
import { startTestPeer } from "./test_peer.ts";

const ORG = "org-a";
const REQUEST = "https://didcomm.org/didexchange/1.1/request";

async function didcommMessages(kv: Deno.Kv): Promise<OutboxMessage[]> {
  const out: OutboxMessage[] = [];
  for await (const p of kv.list<string>({ prefix: keys.outboxByOrgPrefix(ORG, DIDCOMM_KIND) })) {
    const m = await kv.get<OutboxMessage>(keys.outboxMessage(p.value));
    if (m.value) out.push(m.value);
  }
  return out;
}

async function clockContext(): Promise<{ ctx: ServedContext; clock: { t: number } }> {
  const clock = { t: Date.now() };
  const ctx = await servedContext({ now: () => clock.t });
  await configureAgent(ctx, ORG, ctx.endpoint);
  return { ctx, clock };
}

Deno.test("a message to a peer that is down is delivered when the peer comes back", async () => {
  const { ctx, clock } = await clockContext();
  const kp = await generateEd25519KeyPair();
  const port = freePort();
  let peer: Awaited<ReturnType<typeof startTestPeer>> | undefined;
  try {
    const token = await ctx.token({ [ORG]: ["holder"] });
    await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
        token,
        body: { invitation: invitationTo(kp.verkey, `http://127.0.0.1:${port}`) },
      }),
      201,
    );
    await ctx.services.dispatcher.runOnce();
    let [msg] = await didcommMessages(ctx.kv);
    assert.equal(msg!.status, "pending");
    assert.equal(msg!.attempts, 1);
    assert.ok(msg!.lastError, "the refused connection is recorded");

    peer = await startTestPeer({ port, keyPair: kp, manual: true });
    clock.t += DIDCOMM_SCHEDULE[0]!;
    await ctx.services.dispatcher.runOnce();
    [msg] = await didcommMessages(ctx.kv);
    assert.equal(msg!.status, "succeeded");
    assert.equal(msg!.attempts, 2);
    const request = await peer.waitFor(REQUEST, 1000);
    assert.equal(peer.received.length, 1);
    assert.equal(request["@id"], (msg!.payload as { message: { "@id": string } }).message["@id"]);
  } finally {
    await peer?.close();
    await ctx.close();
  }
});

Deno.test("a message that cannot be delivered is dead-lettered with a message.delivery_failed event", async () => {
  const { ctx, clock } = await clockContext();
  const failing = await startTestPeer({ manual: true, status: 500 });
  const refusing = await startTestPeer({ manual: true, status: 400 });
  try {
    const token = await ctx.token({ [ORG]: ["holder"] });
    const conns: Record<string, string> = {};
    for (const [name, p] of [["failing", failing], ["refusing", refusing]] as const) {
      const c = await expectJson(
        await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
          token,
          body: { invitation: p.invitation() },
        }),
        201,
      );
      conns[name] = String(c.id);
    }
    for (let i = 0; i <= DIDCOMM_SCHEDULE.length; i++) {
      await ctx.services.dispatcher.runOnce();
      clock.t += DIDCOMM_SCHEDULE[Math.min(i, DIDCOMM_SCHEDULE.length - 1)]!;
    }
    const msgs = await didcommMessages(ctx.kv);
    const byConn = (id: string) =>
      msgs.find((m) => (m.payload as { connectionId: string }).connectionId === id)!;
    const dead = byConn(conns.failing!);
    assert.equal(dead.status, "dead");
    assert.equal(dead.attempts, DIDCOMM_SCHEDULE.length + 1);
    assert.equal(failing.received.length, DIDCOMM_SCHEDULE.length + 1, "every attempt reached it");
    const final = byConn(conns.refusing!);
    assert.equal(final.status, "dead");
    assert.equal(final.attempts, 1, "a 4xx answer is final");

    const events: WebhookEvent[] = [];
    for await (const e of ctx.kv.list<OutboxMessage<WebhookEvent>>({ prefix: ["outbox"] })) {
      if (e.value.kind === "webhook" && e.value.payload?.type === "message.delivery_failed") {
        events.push(e.value.payload);
      }
    }
    assert.equal(events.length, 2);
    const ev = events.find((e) => e.data.connectionId === conns.failing)!;
    assert.equal(ev.orgId, ORG);
    assert.equal(ev.data.outboxId, dead.id);
    assert.equal(ev.data.messageType, REQUEST);
    assert.equal(ev.data.attempts, DIDCOMM_SCHEDULE.length + 1);
    assert.equal(ev.data.lastStatus, 500);
  } finally {
    await failing.close();
    await refusing.close();
    await ctx.close();
  }
});

Deno.test("queueMessage: a connection that changes between the read and the commit is read again (a hung-up connection takes no message)", async () => {
  const ctx = await servedContext();
  const peer = await startTestPeer();
  try {
    ctx.services.dispatcher.start();
    await configureAgent(ctx, ORG, ctx.endpoint);
    const token = await ctx.token({ [ORG]: ["holder"] });
    const created = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
        token,
        body: { invitation: peer.invitation() },
      }),
      201,
    );
    const connectionId = String(created.id);
    await waitFor(
      "completed",
      async () =>
        (await ctx.services.didcomm.getConnection(ORG, connectionId)).state === "completed",
    );
    await ctx.services.dispatcher.stop();

    const ping = { "@type": "https://didcomm.org/trust_ping/1.0/ping", "@id": crypto.randomUUID() };
    await assert.rejects(
      atomicUpdate(ctx.services.kv, async (op, attempt) => {
        await ctx.services.didcomm.queueMessage(op, { orgId: ORG, connectionId, message: ping });
        // Another writer hangs the connection up after our read, before our commit.
        if (attempt === 0) await ctx.services.didcomm.hangUp(ORG, connectionId);
      }),
      (e) => e instanceof AppError && e.status === 409 && /completed connection/.test(e.message),
    );
    const queued = (await didcommMessages(ctx.kv)).map((m) =>
      (m.payload as { message: { "@id": string } }).message["@id"]
    );
    assert.ok(!queued.includes(ping["@id"]), "no message queued on the hung-up connection");
  } finally {
    await peer.close();
    await ctx.close();
  }
});
