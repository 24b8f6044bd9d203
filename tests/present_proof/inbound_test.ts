/**
 * Received Present Proof 2.0 messages: an AnonCreds request is recorded and accept answers 409
 * naming the format, decline sends a problem report; the verifier's ack → done, its problem report
 * → abandoned with the reason; an invalid definition is recorded abandoned and reported; every
 * change emits `proof.state_changed`; `autoAcceptProofs: always` answers a satisfiable request with
 * no person and leaves an unmet one waiting; submission requirements (all, pick, nested) and a v1
 * descriptor with `schema` are evaluated by the library.
 */
import assert from "node:assert/strict";
import { keys } from "../../src/kv/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";
import { expectJson } from "../support/context.ts";
import { createProofContext, definition, proofOf, requestMessage, sentOn } from "./helpers.ts";

type Json = Record<string, unknown>;

Deno.test("an AnonCreds request is recorded; accept is 409 naming the format; decline sends a problem report", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    const id = crypto.randomUUID();
    await ctx.receive({
      "@type": "https://didcomm.org/present-proof/2.0/request-presentation",
      "@id": id,
      formats: [{ attach_id: "a", format: "anoncreds/proof-request@v1.0" }],
      "request_presentations~attach": [{ "@id": "a", data: { json: { name: "proof" } } }],
    });
    const rec = await proofOf(ctx, id);
    assert.equal(rec.state, "request-received");
    assert.equal(rec.requestFormat, "anoncreds/proof-request@v1.0");
    assert.deepEqual(rec.inputDescriptors, []);
    assert.match(String(rec.unanswerable), /AnonCreds/);
    const body = { proofRecordId: rec.id };
    const refused = await expectJson(
      await ctx.call("POST", "/proofs/accept-request", { token: ctx.member, body }),
      409,
    );
    assert.match(String(refused.message), /"anoncreds\/proof-request@v1\.0"/);
    const declined = await expectJson(
      await ctx.call("POST", "/proofs/decline-request", { token: ctx.member, body }),
      200,
    );
    assert.equal(declined.state, "declined");
    const [report] = sentOn(await ctx.flush(), id, "problem-report");
    assert.equal((report!.description as Json).code, "abandoned");
    await expectJson(
      await ctx.call("POST", "/proofs/decline-request", { token: ctx.member, body }),
      409,
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("the verifier's ack → done; its problem report → abandoned with the reason; events for every change", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    const a = requestMessage(definition(["name", "$.credentialSubject.name"]));
    const b = requestMessage(definition(["name", "$.credentialSubject.name"]));
    await ctx.receive(a);
    await ctx.receive(b);
    for (const m of [a, b]) {
      await ctx.services.prover.acceptRequest(ctx.orgId, String((await proofOf(ctx, m["@id"])).id));
    }
    await ctx.receive({
      "@type": "https://didcomm.org/present-proof/2.0/ack",
      "@id": crypto.randomUUID(),
      status: "OK",
      "~thread": { thid: a["@id"] },
    });
    await ctx.receive({
      "@type": "https://didcomm.org/present-proof/2.0/problem-report",
      "@id": crypto.randomUUID(),
      description: { en: "The presentation does not verify.", code: "abandoned" },
      "~thread": { thid: b["@id"] },
    });
    assert.equal((await proofOf(ctx, a["@id"])).state, "done");
    const abandoned = await proofOf(ctx, b["@id"]);
    assert.equal(abandoned.state, "abandoned");
    assert.equal(abandoned.errorMessage, "abandoned: The presentation does not verify.");
    const events: Json[] = [];
    for await (const e of ctx.kv.list<OutboxMessage<Json>>({ prefix: ["outbox"] })) {
      if (e.value.kind === "webhook" && e.value.payload.type === "proof.state_changed") {
        events.push(e.value.payload.data as Json);
      }
    }
    const of = (thid: string) =>
      events.filter((d) => d.threadId === thid).map((d) => `${d.previousState}→${d.state}`);
    assert.deepEqual(of(a["@id"]), [
      "null→request-received",
      "request-received→presentation-sent",
      "presentation-sent→done",
    ]);
    assert.deepEqual(of(b["@id"]), [
      "null→request-received",
      "request-received→presentation-sent",
      "presentation-sent→abandoned",
    ]);
  } finally {
    await ctx.close();
  }
});

Deno.test("a definition the library finds invalid is recorded abandoned and the verifier told; a malformed request only told", async () => {
  const ctx = await createProofContext();
  try {
    const bad = requestMessage({
      id: "pd",
      input_descriptors: [{ id: "x", constraints: { fields: [{ path: ["not a path"] }] } }],
    });
    await ctx.receive(bad);
    const rec = await proofOf(ctx, bad["@id"]);
    assert.equal(rec.state, "abandoned");
    assert.match(String(rec.errorMessage), /path/);
    const noChallenge = requestMessage(definition(["n", "$.credentialSubject.name"]), {
      challenge: "",
    });
    await ctx.receive(noChallenge);
    assert.equal(
      await ctx.kv.get(keys.proofByThread(ctx.orgId, noChallenge["@id"])).then((e) => e.value),
      null,
    );
    const sent = await ctx.flush();
    assert.equal(sentOn(sent, bad["@id"], "problem-report").length, 1);
    const [told] = sentOn(sent, noChallenge["@id"], "problem-report");
    assert.match(String((told!.description as Json).en), /challenge/);
  } finally {
    await ctx.close();
  }
});

Deno.test("autoAcceptProofs always: a satisfiable request is answered without a person, an unmet one waits", async () => {
  const ctx = await createProofContext();
  try {
    await expectJson(
      await ctx.call("PATCH", `/orgs/${ctx.orgId}/agents`, {
        token: await ctx.token({ [ctx.orgId]: ["owner"] }),
        body: { autoAcceptProofs: "always" },
      }),
      200,
    );
    await ctx.store({ name: "Alice" });
    const ok = requestMessage(definition(["name", "$.credentialSubject.name"]));
    const unmet = requestMessage(definition(["age", "$.credentialSubject.age"]));
    await ctx.receive(ok);
    await ctx.receive(unmet);
    const sent = await ctx.flush();
    assert.equal((await proofOf(ctx, ok["@id"])).state, "presentation-sent");
    assert.equal(sentOn(sent, ok["@id"], "presentation").length, 1);
    assert.equal((await proofOf(ctx, unmet["@id"])).state, "request-received");
    assert.equal(sentOn(sent, unmet["@id"], "presentation").length, 0);
  } finally {
    await ctx.close();
  }
});

Deno.test("submission requirements (all, pick, nested) and a v1 schema descriptor", async () => {
  const ctx = await createProofContext();
  try {
    const name = await ctx.store({ name: "Alice" });
    const age = await ctx.store({ age: 30 });
    const d = (id: string, path: string, group: string[]) => ({
      id,
      group,
      constraints: { fields: [{ path: [path] }] },
    });
    const pd = (submission_requirements: Json[]) => ({
      id: crypto.randomUUID(),
      submission_requirements,
      input_descriptors: [
        d("name", "$.credentialSubject.name", ["A"]),
        d("age", "$.credentialSubject.age", ["A", "B"]),
        d("email", "$.credentialSubject.email", ["C"]),
      ],
    });
    const cases: [Json[], Json | undefined, RegExp | undefined][] = [
      [[{ rule: "all", from: "A" }], { name, age }, undefined],
      [[{ rule: "pick", count: 1, from: "A" }], { name }, undefined],
      [[{ rule: "pick", min: 1, from: "C" }], undefined, /"email"/],
      [[{ rule: "all", from: "C" }], undefined, /"email"/],
      [
        [{
          name: "Either",
          rule: "pick",
          count: 1,
          from_nested: [{ rule: "all", from: "C" }, { rule: "all", from: "B" }],
        }],
        { age },
        undefined,
      ],
    ];
    for (const [reqs, selection, unmet] of cases) {
      const m = requestMessage(pd(reqs));
      await ctx.receive(m);
      const rec = await proofOf(ctx, m["@id"]);
      assert.deepEqual(rec.selection, selection, JSON.stringify(reqs));
      if (unmet) assert.match(String(rec.unanswerable), unmet);
      else await ctx.services.prover.acceptRequest(ctx.orgId, String(rec.id));
    }
    const v1 = requestMessage({
      id: crypto.randomUUID(),
      input_descriptors: [{
        id: "vc",
        schema: [{ uri: "https://www.w3.org/2018/credentials/v1" }],
        constraints: { fields: [{ path: ["$.credentialSubject.age"] }] },
      }],
    });
    await ctx.receive(v1);
    assert.deepEqual((await proofOf(ctx, v1["@id"])).selection, { vc: age });
  } finally {
    await ctx.close();
  }
});
