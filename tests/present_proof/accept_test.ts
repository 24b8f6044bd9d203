/**
 * Accepting a proof request against stored credentials: the presentation is signed by the org's
 * did:key over the challenge and domain and verifies (checked here with @digitalbazaar/vc); the
 * person's selection is honoured and checked; revoked and suspended credentials are never offered;
 * `limit_disclosure: required` cannot be met by an Ed25519 JSON-LD credential; 20 parallel accepts
 * send one presentation; the route rules (400, 404 for another org, 409).
 */
import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import {
  acceptRequest,
  createProofContext,
  definition,
  presentationOf,
  proofOf,
  receiveRequest,
  requestMessage,
  sentOn,
  verifiesAt,
} from "./helpers.ts";

type Json = Record<string, unknown>;

Deno.test("accept-request: the presentation carries the newest match, its submission, and verifies with authentication over challenge and domain", async () => {
  const ctx = await createProofContext();
  try {
    const older = await ctx.store({ name: "Old Alice" });
    const newer = await ctx.store({ name: "Alice", age: 30 });
    const req = requestMessage(definition(["name", "$.credentialSubject.name"]), {
      challenge: "c-123",
      domain: "verifier.test",
    });
    await ctx.receive(req);
    const rec = await proofOf(ctx, req["@id"]);
    assert.equal(rec.state, "request-received");
    assert.deepEqual(rec.verifier, { connectionId: ctx.connectionId, label: "Verifier Co" });
    const [d] = rec.inputDescriptors as Json[];
    assert.deepEqual((d!.matches as Json[]).map((m) => m.credentialId), [newer, older]);
    assert.deepEqual((d!.matches as Json[])[0]!.disclosedClaims, [
      ["credentialSubject", "name"],
      ["credentialSubject", "age"],
    ]);
    assert.deepEqual(rec.selection, { name: newer });

    const accepted = await expectJson(await acceptRequest(ctx, rec.id), 200);
    assert.equal(accepted.state, "presentation-sent");
    const [msg] = sentOn(await ctx.flush(), req["@id"], "presentation");
    assert.ok(msg, "a presentation was sent");
    assert.deepEqual(msg.formats, [{
      attach_id: (msg["presentations~attach"] as Json[])[0]!["@id"],
      format: "dif/presentation-exchange/submission@v1.0",
    }]);
    const vp = presentationOf(msg);
    const holder = String(vp.holder);
    assert.ok(holder.startsWith("did:key:z6Mk"));
    assert.equal(((vp.verifiableCredential as Json[])[0]!.credentialSubject as Json).name, "Alice");
    assert.deepEqual((vp.presentation_submission as Json).descriptor_map, [{
      id: "name",
      format: "ldp_vc",
      path: "$.verifiableCredential[0]",
    }]);
    const proof = vp.proof as Json;
    assert.equal(proof.proofPurpose, "authentication");
    assert.equal(proof.challenge, "c-123");
    assert.equal(proof.domain, "verifier.test");
    assert.equal(proof.verificationMethod, `${holder}#${holder.slice(8)}`);
    const check = (challenge: string) => verifiesAt(vp, { challenge, domain: "verifier.test" });
    assert.equal(await check("c-123"), true);
    assert.equal(await check("another"), false);
  } finally {
    await ctx.close();
  }
});

Deno.test("accept-request: a selection picks an older credential; a wrong one is 409, an unknown descriptor 400", async () => {
  const ctx = await createProofContext();
  try {
    const older = await ctx.store({ name: "Old Alice" });
    const ageOnly = await ctx.store({ age: 40 });
    await ctx.store({ name: "Alice" });
    const req = requestMessage(definition(["name", "$.credentialSubject.name"]));
    await ctx.receive(req);
    const { id } = await proofOf(ctx, req["@id"]);
    const accept = (selection: Json) => acceptRequest(ctx, id, selection);
    const bad = await expectJson(await accept({ nom: older }), 400);
    assert.match(String(bad.message), /input descriptor "nom"/);
    const wrong = await expectJson(await accept({ name: ageOnly }), 409);
    assert.match(String(wrong.message), new RegExp(`"${ageOnly}" does not satisfy`));
    const done = await expectJson(await accept({ name: older }), 200);
    assert.deepEqual(done.selection, { name: older });
    const [msg] = sentOn(await ctx.flush(), req["@id"], "presentation");
    const vp = presentationOf(msg!);
    assert.equal(
      ((vp.verifiableCredential as Json[])[0]!.credentialSubject as Json).name,
      "Old Alice",
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("a revoked or suspended credential is never offered as a match", async () => {
  const banned = new Set<string>();
  const ctx = await createProofContext({
    status: (_org, c) => Promise.resolve(banned.has(c.record.id) ? "revoked" : "valid"),
  });
  try {
    const good = await ctx.store({ name: "Alice" });
    const revoked = await ctx.store({ name: "Mallory" });
    banned.add(revoked);
    const req = requestMessage(definition(["name", "$.credentialSubject.name"]));
    await ctx.receive(req);
    const rec = await proofOf(ctx, req["@id"]);
    const [d] = rec.inputDescriptors as Json[];
    assert.deepEqual((d!.matches as Json[]).map((m) => m.credentialId), [good]);
    const chosen = await expectJson(await acceptRequest(ctx, rec.id, { name: revoked }), 409);
    assert.match(String(chosen.message), /revoked/);
    banned.add(good);
    const none = await expectJson(await acceptRequest(ctx, rec.id), 409);
    assert.match(String(none.message), /No stored credential satisfies input descriptor "name"/);
    assert.deepEqual(sentOn(await ctx.flush(), req["@id"], "presentation"), []);
  } finally {
    await ctx.close();
  }
});

Deno.test("limit_disclosure required cannot be met by a whole JSON-LD credential; preferred can", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    const pd = (limit: string) => ({
      id: crypto.randomUUID(),
      input_descriptors: [{
        id: "name",
        constraints: { limit_disclosure: limit, fields: [{ path: ["$.credentialSubject.name"] }] },
      }],
    });
    const required = requestMessage(pd("required"));
    await ctx.receive(required);
    const r1 = await proofOf(ctx, required["@id"]);
    assert.match(String(r1.unanswerable), /input descriptor "name"/);
    const preferred = requestMessage(pd("preferred"));
    await ctx.receive(preferred);
    const r2 = await proofOf(ctx, preferred["@id"]);
    assert.equal(r2.unanswerable, undefined);
    assert.equal(Object.keys(r2.selection as Json).length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("20 parallel accept-request calls: one 200, the rest 409, one presentation sent; another org's token gets 404", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    const { req, rec: { id } } = await receiveRequest(ctx);
    const other = await ctx.token({ "org-b": ["owner"] });
    await expectJson(await acceptRequest(ctx, id, undefined, other), 404);
    await expectJson(
      await ctx.call("POST", "/proofs/accept-request", { token: ctx.member, body: { id } }),
      400,
    );
    const results = await Promise.all(Array.from({ length: 20 }, () => acceptRequest(ctx, id)));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, ...Array(19).fill(409)]);
    for (const r of results) await r.body?.cancel();
    assert.equal(sentOn(await ctx.flush(), req["@id"], "presentation").length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("accept and decline on a connection that no longer exists: 409 naming the record and the connection; the record stays", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    const { req, rec: { id } } = await receiveRequest(ctx);
    ctx.port.connections.delete(ctx.connectionId);
    for (const path of ["/proofs/accept-request", "/proofs/decline-request"]) {
      const res = await expectJson(
        await ctx.call("POST", path, { token: ctx.member, body: { proofRecordId: id } }),
        409,
      );
      assert.match(
        String(res.message),
        new RegExp(`Proof exchange "${id}" uses connection "${ctx.connectionId}", which no longer`),
      );
    }
    assert.equal((await proofOf(ctx, req["@id"])).state, "request-received");
  } finally {
    await ctx.close();
  }
});
