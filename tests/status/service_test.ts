/**
 * Kept statuses: `GET` shows a stored credential's top-level `status`; `check-status` (both
 * formats) checks again, keeps the answer and emits `credential.status_changed` once per change;
 * another org's credential is 404, a non-member 403; the recheck cron takes each tick in one
 * process only (two services on one KV file) and rechecks what is due (an injected clock).
 */
import assert from "node:assert/strict";
import { newW3cRecord } from "../../src/credentials/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";
import { StatusService, type StatusState, type StatusSubject } from "../../src/status/mod.ts";
import {
  createTestContext,
  expectJson,
  randomSecretsKey,
  type TestContext,
} from "../support/context.ts";
import {
  entry,
  listCredential,
  listHost,
  sdJwtWithStatus,
  testIssuer,
  tokenListJwt,
} from "./lists.ts";

const ORG = "org-status";
type Json = Record<string, unknown>;

/** Stores a credential as receipt does (credential and first status in one commit). */
async function storeCredential(ctx: TestContext, id: string, subject: StatusSubject) {
  const status = await ctx.services.status.statusOf(subject);
  const op = ctx.kv.atomic();
  const now = ctx.services.now();
  const exchange = { id: crypto.randomUUID(), connectionId: crypto.randomUUID() };
  ctx.services.credentials.add(
    op,
    ORG,
    subject.format === "ldp_vc"
      ? {
        format: "ldp_vc",
        record: newW3cRecord({ id, credential: subject.credential, exchange, now }),
      }
      : {
        format: "dc+sd-jwt",
        record: {
          id,
          orgId: ORG,
          offerId: crypto.randomUUID(),
          vct: "https://example.org/vct/test",
          issuer: "did:example",
          claims: {},
          compact: subject.compact,
          createdAt: new Date(now).toISOString(),
        },
      },
    status,
  );
  assert.ok((await op.commit()).ok);
  return status;
}

/** The `credential.status_changed` events in the outbox, oldest first. */
async function statusEvents(kv: Deno.Kv): Promise<Json[]> {
  const out: Json[] = [];
  for await (const e of kv.list<OutboxMessage<Json>>({ prefix: ["outbox"] })) {
    const ev = e.value.payload as { type?: string; data?: Json };
    if (ev.type === "credential.status_changed") out.push(ev.data!);
  }
  return out;
}

Deno.test("check-status: W3C and SD-JWT credentials are checked again, kept, and each change emits credential.status_changed once", async () => {
  let t = Date.parse("2026-02-01T00:00:00Z");
  const ctx = await createTestContext({ now: () => t });
  const host = listHost();
  try {
    const issuer = await testIssuer();
    const token = await ctx.token({ [ORG]: ["holder"] });
    const listUrl = host.url("/bsl");
    host.serveJson("/bsl", await listCredential({ url: listUrl, issuer, ttl: 1000 }));
    const jwtUri = host.url("/tsl");
    host.serveJwt(
      "/tsl",
      await tokenListJwt({ uri: jwtUri, statuses: {}, signer: issuer, ttl: 1 }),
    );

    const w3cId = crypto.randomUUID();
    const vc = { issuer: issuer.did, credentialStatus: entry(listUrl, 3) } as Json;
    assert.equal(
      (await storeCredential(ctx, w3cId, { format: "ldp_vc", credential: vc })).state,
      "valid",
    );
    const sdId = crypto.randomUUID();
    const compact = await sdJwtWithStatus(issuer, { status_list: { idx: 3, uri: jwtUri } });
    assert.equal(
      (await storeCredential(ctx, sdId, { format: "dc+sd-jwt", compact })).state,
      "valid",
    );

    const got = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/w3c-credentials/${w3cId}`, { token }),
      200,
    );
    assert.deepEqual(got.status, { state: "valid", checkedAt: new Date(t).toISOString() });
    const list = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/sd-jwt-credentials`, { token }),
      200,
    );
    assert.equal(((list.data as Json[])[0]!.status as Json).state, "valid");

    // The issuer revokes both; past the lists' ttl, check-status says so.
    host.serveJson("/bsl", await listCredential({ url: listUrl, issuer, ttl: 1000, set: [3] }));
    host.serveJwt(
      "/tsl",
      await tokenListJwt({ uri: jwtUri, statuses: { 3: 1 }, signer: issuer, ttl: 1 }),
    );
    t += 5_000;
    const routes = [["w3c-credentials", w3cId], ["sd-jwt-credentials", sdId]] as const;
    for (const [segment, id] of routes) {
      const path = `/orgs/${ORG}/${segment}/${id}/check-status`;
      const checked = await expectJson(await ctx.call("POST", path, { token }), 200);
      assert.equal(checked.id, id);
      assert.deepEqual(checked.status, { state: "revoked", checkedAt: new Date(t).toISOString() });
      const again = await expectJson(await ctx.call("POST", path, { token }), 200);
      assert.equal((again.status as Json).state, "revoked");
      const read = await expectJson(
        await ctx.call("GET", `/orgs/${ORG}/${segment}/${id}`, { token }),
        200,
      );
      assert.equal((read.status as Json).state, "revoked", "the answer is kept");
    }
    const events = (await statusEvents(ctx.kv)).sort((x, y) =>
      String(y.format).localeCompare(String(x.format))
    );
    assert.deepEqual(events, [
      {
        id: w3cId,
        orgId: ORG,
        format: "ldp_vc",
        status: { state: "revoked", checkedAt: new Date(t).toISOString() },
      },
      {
        id: sdId,
        orgId: ORG,
        format: "dc+sd-jwt",
        status: { state: "revoked", checkedAt: new Date(t).toISOString() },
      },
    ], "one event per change, none for a check that changed nothing");

    // Another org's credential is 404 under one's own org; a non-member of the org 403.
    const other = await ctx.token({ "org-other": ["holder"] });
    const r404 = await ctx.call("POST", `/orgs/org-other/w3c-credentials/${w3cId}/check-status`, {
      token: other,
    });
    assert.equal(r404.status, 404);
    await r404.body?.cancel();
    const r403 = await ctx.call("POST", `/orgs/${ORG}/sd-jwt-credentials/${sdId}/check-status`, {
      token: other,
    });
    assert.equal(r403.status, 403);
    await r403.body?.cancel();
    const r400 = await ctx.call("POST", `/orgs/${ORG}/sd-jwt-credentials/not-a-uuid/check-status`, {
      token,
    });
    assert.equal(r400.status, 400);
    await r400.body?.cancel();
  } finally {
    await host.close();
    await ctx.close();
  }
});

Deno.test("the recheck cron: one process per tick on a shared KV; due statuses are rechecked, their changes announced", async () => {
  const dir = await Deno.makeTempDir({ prefix: "status_cron_" });
  let t = Date.parse("2026-03-01T00:00:30Z");
  const env = { CREDENTIAL_STATUS_RECHECK_SECONDS: "3600", SECRETS_KEY: randomSecretsKey() };
  const a = await createTestContext({ now: () => t, kvPath: `${dir}/kv.sqlite3`, env });
  const b = await createTestContext({ now: () => t, kvPath: `${dir}/kv.sqlite3`, env });
  const host = listHost();
  try {
    const issuer = await testIssuer();
    const url = host.url("/bsl");
    host.serveJson("/bsl", await listCredential({ url, issuer, ttl: 1000 }));
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    for (const [i, id] of ids.entries()) {
      const vc = { issuer: issuer.did, credentialStatus: entry(url, i) } as Json;
      await storeCredential(a, id, { format: "ldp_vc", credential: vc });
    }
    // Not due yet: the tick is taken, nothing is rechecked.
    assert.equal(await a.services.status.cronTick(), 0);
    host.serveJson("/bsl", await listCredential({ url, issuer, ttl: 1000, set: [1] }));
    t += 3_600_000;
    const [ra, rb] = await Promise.all([
      a.services.status.cronTick(),
      b.services.status.cronTick(),
    ]);
    assert.deepEqual([ra, rb].sort(), [0, 2], "one process takes the tick and rechecks both");
    assert.equal(await b.services.status.cronTick(), 0, "the tick is taken once");
    const events = await statusEvents(a.kv);
    assert.deepEqual(events.map((e) => [e.id, (e.status as Json).state]), [[ids[1], "revoked"]]);
    // The next recheck is due an hour later, not before.
    t += 60_000;
    assert.equal(await b.services.status.cronTick(), 0);
    t += 3_600_000;
    assert.equal(await b.services.status.cronTick(), 2);
  } finally {
    await host.close();
    await a.close();
    await b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CREDENTIAL_STATUS_RECHECK_SECONDS=0: the cron rechecks nothing; a credential stored before statuses were kept reads unknown until checked", async () => {
  const ctx = await createTestContext({ env: { CREDENTIAL_STATUS_RECHECK_SECONDS: "0" } });
  try {
    const token = await ctx.token({ [ORG]: ["holder"] });
    const id = crypto.randomUUID();
    const op = ctx.kv.atomic();
    const exchange = { id: crypto.randomUUID(), connectionId: crypto.randomUUID() };
    ctx.services.credentials.add(op, ORG, {
      format: "ldp_vc",
      record: newW3cRecord({
        id,
        credential: { issuer: "did:example:old" },
        exchange,
        now: Date.now(),
      }),
    });
    await op.commit();
    const got = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/w3c-credentials/${id}`, { token }),
      200,
    );
    assert.equal((got.status as Json).state, "unknown");
    assert.match(String((got.status as Json).message), /not been checked/);
    const checked = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/w3c-credentials/${id}/check-status`, { token }),
      200,
    );
    assert.equal((checked.status as Json).state, "unknown");
    assert.match(String((checked.status as Json).message), /no status entry/);
    assert.equal(await ctx.services.status.cronTick(), 0);
    assert.deepEqual(await statusEvents(ctx.kv), []);
  } finally {
    await ctx.close();
  }
});

Deno.test("beforePresentation: checked now; a revocation or suspension a list gave stands while the list cannot be read, also after a check stored unknown", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let answer: StatusState = "revoked";
    const status = new StatusService({
      kv,
      checker: {
        check: () =>
          Promise.resolve({ state: answer, checkedAt: new Date().toISOString(), message: "" }),
      },
      dispatcher: { wake() {} },
      now: () => 0,
      recheckSeconds: 0,
    });
    const subject = { format: "dc+sd-jwt", compact: "x~" } as const;
    const state = async (id: string) => (await status.beforePresentation(ORG, id, subject)).state;
    const op = kv.atomic();
    for (const [id, s] of [["r", "revoked"], ["s", "suspended"], ["v", "valid"]] as const) {
      status.record(op, { orgId: ORG, id, subject, status: { state: s, checkedAt: "" } });
    }
    await op.commit();
    answer = "unknown";
    assert.deepEqual([await state("r"), await state("s"), await state("v")], [
      "revoked",
      "suspended",
      "unknown",
    ]);
    assert.equal(await state("never-stored"), "unknown");
    // A check that cannot read the list stores unknown; what the list said before still stands.
    assert.equal((await status.check(ORG, "r", subject)).state, "unknown");
    assert.equal((await status.check(ORG, "r", subject)).state, "unknown");
    assert.equal(await state("r"), "revoked");
    // Lifted since: the list says so now.
    answer = "valid";
    assert.equal(await state("s"), "valid");
    assert.equal((await status.check(ORG, "s", subject)).state, "valid");
    answer = "unknown";
    assert.equal(await state("s"), "unknown", "the last thing the list said was valid");
  } finally {
    kv.close();
  }
});
