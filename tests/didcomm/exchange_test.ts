/**
 * The DIDComm exchange kit (`src/didcomm/exchange.ts`) that Issue Credential and Present Proof are
 * built on, on a real `:memory:` KV with a small protocol of its own: one 4xx rule for automatic
 * steps, one clip of a record's `errorMessage`, transitions that name the state they found, and
 * replies that never throw.
 */
import assert from "node:assert/strict";
import { AppError, conflict, notFound } from "../../src/base/mod.ts";
import {
  autoStepHandler,
  type DidCommMessage,
  errorMessage,
  type ExchangeDidcomm,
  type ExchangeInbound,
  ExchangeKit,
  type ExchangeProtocol,
  MAX_ERROR_MESSAGE,
  type QueueMessageInput,
} from "../../src/didcomm/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";

interface Stored {
  orgId: string;
  record: {
    id: string;
    connectionId: string;
    threadId: string;
    state: string;
    errorMessage?: string;
  };
}

const key = (orgId: string, id: string) => ["test_exchange", orgId, id];
const threadKey = (orgId: string, threadId: string) => ["test_exchange_thread", orgId, threadId];

const PROTOCOL: ExchangeProtocol<Stored> = {
  name: "Test exchange",
  problemReport: (thid, code, en) => ({
    "@type": "https://didcomm.org/test/1.0/problem-report",
    "@id": crypto.randomUUID(),
    "~thread": { thid },
    description: { code, en },
  }),
  finalStates: ["done", "abandoned"],
  withState: (s, state, _now, errorMessage) => ({
    ...s,
    record: { ...s.record, state, ...(errorMessage ? { errorMessage } : {}) },
  }),
  read: async (kv, orgId, id) => {
    const e = await kv.get<Stored>(key(orgId, id));
    return e.value ? e as Deno.KvEntry<Stored> : null;
  },
  readByThread: async (kv, orgId, threadId) => {
    const id = (await kv.get<string>(threadKey(orgId, threadId))).value;
    return id ? await PROTOCOL.read(kv, orgId, id) : null;
  },
  addUpdate: (op, entry, next) => {
    op.check(entry).set(key(next.orgId, next.record.id), next);
  },
};

/** A stand-in for the DIDComm layer (the real one needs a peer): records or refuses messages. */
class RecordingDidcomm implements ExchangeDidcomm {
  readonly queued: QueueMessageInput[] = [];
  refuse?: AppError;
  queueMessage(_op: Deno.AtomicOperation, input: QueueMessageInput): Promise<void> {
    if (this.refuse) return Promise.reject(this.refuse);
    this.queued.push(input);
    return Promise.resolve();
  }
}

async function world() {
  const kv = await Deno.openKv(":memory:");
  const didcomm = new RecordingDidcomm();
  let wakes = 0;
  const kit = new ExchangeKit<Stored>(
    { kv, didcomm, dispatcher: { wake: () => wakes++ }, now: () => 1_000 },
    PROTOCOL,
  );
  const stored: Stored = {
    orgId: "org-a",
    record: { id: "x1", connectionId: "c1", threadId: "t1", state: "offered" },
  };
  await kv.atomic().set(key("org-a", "x1"), stored).set(threadKey("org-a", "t1"), "x1").commit();
  return { kv, didcomm, kit, wakes: () => wakes };
}

const message = (thid: string): DidCommMessage => ({
  "@type": "https://didcomm.org/test/1.0/problem-report",
  "@id": crypto.randomUUID(),
  "~thread": { thid },
  description: { code: "nope", en: "x".repeat(2000) },
});

Deno.test("exchange kit: an automatic step ends on any 4xx and is tried again on anything else", async () => {
  const msg = (payload: { orgId: string }) =>
    ({ id: "m", payload, attempts: 0 }) as unknown as OutboxMessage<{ orgId: string }>;
  const run = (err?: unknown) =>
    autoStepHandler<{ orgId: string }>(
      "test step",
      () => err ? Promise.reject(err) : Promise.resolve(),
    )
      .handle(msg({ orgId: "org-a" }), { signal: new AbortController().signal });
  assert.deepEqual(await run(), { ok: true });
  for (
    const e of [notFound("gone"), conflict("moved on"), new AppError("bad_request", 400, "no")]
  ) {
    assert.deepEqual(await run(e), { ok: true, status: e.status }, e.message);
  }
  const retried = await run(new AppError("internal", 500, "db down"));
  assert.equal(retried.ok, false);
  assert.equal((await run(new Error("fetch failed"))).ok, false);
});

Deno.test("exchange kit: transition names the state it found, commits the step and wakes the dispatcher", async () => {
  const { kv, kit, didcomm, wakes } = await world();
  try {
    await assert.rejects(
      kit.transition("org-a", "x1", "requested", (s) => Promise.resolve(s)),
      /Test exchange "x1" is in state "offered"; it must be "requested"\./,
    );
    await assert.rejects(
      kit.transition("org-a", "nope", "offered", (s) => Promise.resolve(s)),
      /No test exchange record "nope" exists\./,
    );
    const record = await kit.transition("org-a", "x1", "offered", async (s, op, now) => {
      await kit.queue(op, s, PROTOCOL.problemReport(s.record.threadId, "c", "e"));
      return PROTOCOL.withState(s, "done", now);
    });
    assert.equal(record.state, "done");
    assert.equal((await kv.get<Stored>(key("org-a", "x1"))).value!.record.state, "done");
    assert.equal(didcomm.queued.length, 1);
    assert.equal(wakes(), 1);
    // A connection that is gone is a 409 naming the record and the connection, not a 404.
    didcomm.refuse = notFound("no connection");
    await assert.rejects(
      kit.transition("org-a", "x1", "done", async (s, op) => {
        await kit.queue(op, s, PROTOCOL.problemReport("t1", "c", "e"));
        return s;
      }),
      (e) => e instanceof AppError && e.status === 409 && /connection "c1"/.test(e.message),
    );
  } finally {
    kv.close();
  }
});

Deno.test("exchange kit: a problem report abandons the open exchange with the one clip; replies never throw", async () => {
  const { kv, kit, didcomm } = await world();
  try {
    const inbound = (thid: string, connectionId = "c1"): ExchangeInbound => ({
      orgId: "org-a",
      connectionId,
      message: message(thid),
      op: kv.atomic(),
      now: 2_000,
    });
    // Another connection's report for the thread changes nothing.
    const stranger = inbound("t1", "c2");
    await kit.abandonOnProblemReport(stranger);
    assert.equal((await stranger.op.commit()).ok, true);
    assert.equal((await kv.get<Stored>(key("org-a", "x1"))).value!.record.state, "offered");

    const report = inbound("t1");
    await kit.abandonOnProblemReport(report);
    assert.equal((await report.op.commit()).ok, true);
    const abandoned = (await kv.get<Stored>(key("org-a", "x1"))).value!.record;
    assert.equal(abandoned.state, "abandoned");
    assert.ok(abandoned.errorMessage!.startsWith("nope: xxx"));
    assert.ok(abandoned.errorMessage!.length <= MAX_ERROR_MESSAGE);
    assert.equal(errorMessage("code", "y".repeat(5000)).length, MAX_ERROR_MESSAGE);

    await kit.reply(inbound("t1"), "t1", "unexpected-message", "why");
    assert.equal(
      didcomm.queued.at(-1)!.message["@type"],
      PROTOCOL.problemReport("", "", "")["@type"],
    );
    didcomm.refuse = conflict("not completed");
    await kit.reply(inbound("t1"), "t1", "unexpected-message", "why"); // logged, not thrown
  } finally {
    kv.close();
  }
});
