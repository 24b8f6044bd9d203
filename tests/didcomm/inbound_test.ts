import assert from "node:assert/strict";
import { packMessage } from "../../src/didcomm/envelope.ts";
import { generateEd25519KeyPair } from "../../src/crypto/ed25519.ts";
import { DidCommProblem } from "../../src/didcomm/problem_report.ts";
import { queueMessageOn } from "../../src/didcomm/outbound.ts";
import { INBOUND_KIND } from "../../src/didcomm/inbound.ts";
import { keys } from "../../src/kv/mod.ts";
import { expectJson } from "../support/context.ts";
import { drainOutbox } from "../support/outbox.ts";
import { configureAgent, type ServedContext, servedContext, waitFor } from "./helpers.ts";
import { startTestPeer, type TestPeer } from "./test_peer.ts";

const ORG = "org-a";
const PING = "https://didcomm.org/trust_ping/1.0/ping";
const PONG = "https://didcomm.org/trust_ping/1.0/ping_response";

/** A served app with a completed DID Exchange connection to a test peer. */
async function connected(): Promise<{ ctx: ServedContext; peer: TestPeer; connectionId: string }> {
  const ctx = await servedContext();
  const peer = await startTestPeer();
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
  await waitFor("completed", async () => {
    const r = await ctx.call("GET", `/orgs/${ORG}/connections/${created.id}`, { token });
    return JSON.parse(await r.text()).state === "completed";
  });
  return { ctx, peer, connectionId: String(created.id) };
}

function post(ctx: ServedContext, body: BodyInit, contentType?: string): Promise<Response> {
  const headers: Record<string, string> = {};
  if (contentType) headers["content-type"] = contentType;
  return fetch(ctx.endpoint, { method: "POST", headers, body });
}

async function inboundCount(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: keys.outboxByOrgPrefix(ORG, INBOUND_KIND) })) n++;
  return n;
}

Deno.test("POST /didcomm: 202 and a ping answered; 415 for other content types; 400 for every bad envelope alike", async () => {
  const { ctx, peer } = await connected();
  try {
    const ping = { "@type": PING, "@id": crypto.randomUUID(), response_requested: true };
    const good = await peer.pack(ping);
    const res = await post(ctx, good, "application/didcomm-envelope-enc");
    assert.equal(res.status, 202);
    assert.equal(await res.text(), "");
    const pong = await peer.waitFor(PONG);
    assert.deepEqual(pong["~thread"], { thid: ping["@id"] });

    for (const ct of ["application/json", "text/plain", undefined]) {
      const r = await post(ctx, good, ct);
      const body = await expectJson(r, 415);
      assert.equal(body.statusCode, 415);
    }
    const wire = await post(
      ctx,
      await peer.pack({ ...ping, "@id": crypto.randomUUID() }),
      "application/ssi-agent-wire",
    );
    assert.equal(wire.status, 202);
    await wire.body?.cancel();

    const env = JSON.parse(good);
    // Always a different first character (comparing s[5] left it unchanged 1 time in 64).
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    const stranger = await generateEd25519KeyPair();
    const notForUs = JSON.stringify(await packMessage(ping, { recipientKeys: [stranger.verkey] }));
    const bads: [string, BodyInit][] = [
      ["tampered ciphertext", JSON.stringify({ ...env, ciphertext: flip(env.ciphertext) })],
      ["tampered tag", JSON.stringify({ ...env, tag: flip(env.tag) })],
      [
        "tampered protected header",
        JSON.stringify({ ...env, protected: env.protected.slice(0, -2) + "xx" }),
      ],
      ["wrong recipient", notForUs],
      ["truncated JSON", good.slice(0, Math.floor(good.length / 2))],
      ["not JSON", "hello"],
      ["empty", ""],
      ["oversize", JSON.stringify({ ...env, ciphertext: "A".repeat(200 * 1024) })],
    ];
    const messages = new Set<string>();
    for (const [what, body] of bads) {
      const r = await post(ctx, body, "application/didcomm-envelope-enc");
      const b = await expectJson(r, 400).catch((e) => {
        throw new Error(`${what}: ${e.message}`);
      });
      messages.add(String(b.message));
    }
    assert.equal(messages.size, 1, "one message for every cause: nothing that helps an attacker");
    const huge = await post(ctx, "x".repeat(1024 * 1024 + 10), "application/didcomm-envelope-enc");
    await expectJson(huge, 413);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("a repeated message @id is stored and processed once", async () => {
  const { ctx, peer } = await connected();
  try {
    const before = await inboundCount(ctx.kv);
    const ping = { "@type": PING, "@id": crypto.randomUUID() };
    // Two different envelopes (fresh CEK and nonces) of the same message.
    const [a, b] = await Promise.all([peer.pack(ping), peer.pack(ping)]);
    assert.notEqual(a, b);
    const statuses = await Promise.all([a, b, a].map(async (e) => {
      const r = await post(ctx, e, "application/didcomm-envelope-enc");
      await r.body?.cancel();
      return r.status;
    }));
    assert.deepEqual(statuses, [202, 202, 202]);
    await peer.waitFor(PONG);
    await drainOutbox(ctx.kv);
    assert.equal(peer.received.filter((m) => m.message["@type"] === PONG).length, 1);
    assert.equal(await inboundCount(ctx.kv), before + 1);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("processing errors become problem reports to the sender, never HTTP errors", async () => {
  const { ctx, peer } = await connected();
  const handlers = ctx.services.didcomm.handlers;
  handlers.register("https://didcomm.org/test-boom/1.0/boom", () => {
    throw new Error("internal detail 42");
  });
  handlers.register("https://didcomm.org/test-refuse/1.0/offer", () => {
    throw new DidCommProblem("offer-refused", "Offers of this kind are not accepted.");
  });
  handlers.register("https://didcomm.org/test-write/1.0/note", (inbound) => {
    inbound.op.set(["test_note", inbound.orgId, inbound.message["@id"]], inbound.senderKey);
    queueMessageOn(inbound.op, inbound.connection!, {
      "@type": "https://didcomm.org/test-write/1.0/noted",
      "@id": crypto.randomUUID(),
      "~thread": { thid: inbound.message["@id"] },
    }, inbound.now);
  });
  try {
    const send = async (type: string) => {
      const m = { "@type": type, "@id": crypto.randomUUID() };
      assert.equal(await peer.send(m), 202);
      return m;
    };
    const boom = await send("https://didcomm.org/test-boom/1.0/boom");
    const r1 = await peer.waitFor("https://didcomm.org/test-boom/1.0/problem-report");
    assert.equal(r1["~thread"]?.thid, boom["@id"]);
    assert.equal((r1.description as Record<string, string>).code, "processing-error");
    assert.doesNotMatch(JSON.stringify(r1), /internal detail/);

    await send("https://didcomm.org/test-refuse/1.0/offer");
    const r2 = await peer.waitFor("https://didcomm.org/test-refuse/1.0/problem-report");
    assert.deepEqual(r2.description, {
      en: "Offers of this kind are not accepted.",
      code: "offer-refused",
    });

    await send("https://didcomm.org/unknown-protocol/1.0/thing");
    const r3 = await peer.waitFor("https://didcomm.org/unknown-protocol/1.0/problem-report");
    assert.equal((r3.description as Record<string, string>).code, "message-parse-failure");

    const note = await send("https://didcomm.org/test-write/1.0/note");
    await peer.waitFor("https://didcomm.org/test-write/1.0/noted");
    const stored = await ctx.kv.get(["test_note", ORG, note["@id"]]);
    assert.equal(stored.value, peer.verkey, "handler writes commit with the message");

    // A problem report is never answered with another one.
    await send("https://didcomm.org/unknown-protocol/1.0/problem-report");
    await drainOutbox(ctx.kv);
    assert.equal(
      peer.received.filter((m) => m.message["@type"].endsWith("/problem-report")).length,
      3,
    );
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("messages to a connection key from a key that is not the other side are dropped", async () => {
  const { ctx, peer } = await connected();
  const intruder = await startTestPeer({ manual: true });
  try {
    const ping = { "@type": PING, "@id": crypto.randomUUID() };
    assert.equal(await intruder.send(ping, peer.ourTarget()), 202);
    await drainOutbox(ctx.kv);
    assert.equal(intruder.received.length, 0);
    assert.equal(peer.received.filter((m) => m.message["@type"] === PONG).length, 0);
    const seen = [];
    for await (const e of ctx.kv.list({ prefix: ["didcomm_seen", ORG] })) seen.push(e.value);
    assert.ok(seen.some((v) => (v as { status: string }).status === "processed"));
  } finally {
    await intruder.close();
    await peer.close();
    await ctx.close();
  }
});
