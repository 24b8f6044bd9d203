/**
 * An open proof request is read as it stands now: a request that no stored credential met when it
 * arrived shows its matches, selection and no `unanswerable` once a matching credential is stored
 * (so the console offers Accept), and stops offering a credential revoked since; both reads (the
 * record and the org's list) agree, a read stores nothing, and a request already answered keeps
 * what was sent.
 */
import assert from "node:assert/strict";
import { keys } from "../../src/kv/mod.ts";
import { expectJson } from "../support/context.ts";
import { acceptRequest, createProofContext, proofOf, receiveRequest, sentOn } from "./helpers.ts";

type Json = Record<string, unknown>;

const matchIds = (rec: Json) =>
  (rec.inputDescriptors as { matches: Json[] }[])[0]!.matches.map((m) => m.credentialId);

Deno.test("an open proof request is evaluated again when read: a credential stored after it makes it answerable, a revoked one is no longer offered, nothing is written", async () => {
  const banned = new Set<string>();
  const ctx = await createProofContext({
    status: (_org, c) => Promise.resolve(banned.has(c.record.id) ? "revoked" : "valid"),
  });
  try {
    const { req, rec } = await receiveRequest(ctx);
    assert.equal(rec.state, "request-received");
    assert.match(
      String(rec.unanswerable),
      /No stored credential satisfies input descriptor "name"/,
    );
    assert.deepEqual(matchIds(rec), []);
    const storedKey = keys.proof(ctx.orgId, String(rec.id));
    const before = (await ctx.kv.get(storedKey)).versionstamp;

    // The credential arrives after the request: the record now says what accept would send.
    const alice = await ctx.store({ name: "Alice" });
    const fresh = await proofOf(ctx, req["@id"]);
    assert.equal(fresh.unanswerable, undefined);
    assert.deepEqual(fresh.selection, { name: alice });
    assert.deepEqual(matchIds(fresh), [alice]);
    const list = await expectJson(
      await ctx.call("GET", `/orgs/${ctx.orgId}/proofs`, { token: ctx.member }),
      200,
    );
    assert.deepEqual((list.data as Json[]).find((p) => p.id === rec.id), fresh);

    // Revoked since: no longer offered, unanswerable again.
    banned.add(alice);
    const revoked = await proofOf(ctx, req["@id"]);
    assert.deepEqual(matchIds(revoked), []);
    assert.equal(revoked.selection, undefined);
    assert.match(String(revoked.unanswerable), /No stored credential satisfies/);
    banned.delete(alice);
    assert.equal((await ctx.kv.get(storedKey)).versionstamp, before, "reads store nothing");

    // Accepted with what the read showed; after that the record keeps what was sent.
    const accepted = await expectJson(
      await acceptRequest(ctx, rec.id, fresh.selection as Json),
      200,
    );
    assert.equal(accepted.state, "presentation-sent");
    assert.equal(sentOn(await ctx.flush(), req["@id"], "presentation").length, 1);
    await ctx.store({ name: "Newer Alice" });
    const sent = await proofOf(ctx, req["@id"]);
    assert.deepEqual(sent.selection, { name: alice });
    assert.deepEqual(matchIds(sent), []);
  } finally {
    await ctx.close();
  }
});
