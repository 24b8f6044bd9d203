import assert from "node:assert/strict";
import { keys } from "../../src/kv/keys.ts";
import type { OutboxMessage } from "../../src/outbox/outbox.ts";
import type { WebhookEvent } from "../../src/webhooks/events.ts";
import { expectJson } from "../support/context.ts";
import {
  createCredentialContext,
  exchangeToCredentialReceived,
  FAKE_DIDCOMM_KIND,
} from "./helpers.ts";

type Json = Record<string, unknown>;

/** Outbox messages of `kind` for `orgId`, oldest first. */
async function outboxOf<P>(kv: Deno.Kv, orgId: string, kind: string): Promise<OutboxMessage<P>[]> {
  const out: OutboxMessage<P>[] = [];
  for await (const e of kv.list<string>({ prefix: keys.outboxByOrgPrefix(orgId, kind) })) {
    const m = await kv.get<OutboxMessage<P>>(keys.outboxMessage(e.value));
    if (m.value) out.push(m.value);
  }
  return out;
}

Deno.test("accept-credential: 200 with the record in done, _tags current, one OK ack on the thread", async () => {
  const ctx = await createCredentialContext();
  try {
    const { id, thid } = await exchangeToCredentialReceived(ctx);
    const token = await ctx.token({ [ctx.orgId]: ["holder"] });
    const res = await ctx.call("POST", "/credentials/accept-credential", {
      token,
      body: { credentialRecordId: id },
    });
    const body = await expectJson(res, 200);
    assert.equal(body.id, id);
    assert.equal(body.state, "done");
    assert.deepEqual(body._tags, { state: "done", threadId: thid, connectionId: ctx.connectionId });
    assert.equal(body.role, "holder");
    assert.equal(body.protocolVersion, "v2");
    assert.equal(body.threadId, thid);
    assert.deepEqual(body.credentialAttributes, [
      { "mime-type": "text/plain", name: "name", value: "Alice" },
    ]);
    const creds = body.credentials as Json[];
    assert.equal(creds.length, 1);
    assert.equal(creds[0]!.credentialRecordType, "w3c");
    assert.ok(Date.parse(String(body.updatedAt)) >= Date.parse(String(body.createdAt)));

    const sent = await ctx.flush();
    const acks = sent.filter((s) => s.message["@type"].endsWith("/ack"));
    assert.equal(acks.length, 1);
    assert.equal(acks[0]!.message["@type"], "https://didcomm.org/issue-credential/2.0/ack");
    assert.equal(acks[0]!.message.status, "OK");
    assert.deepEqual(acks[0]!.message["~thread"], { thid });
    assert.equal(acks[0]!.connectionId, ctx.connectionId);

    // GET shows the same; the stored W3C credential is readable
    const got = await expectJson(await ctx.call("GET", `/credentials/${id}`, { token }), 200);
    assert.deepEqual(got, body);
    const w3c = await expectJson(
      await ctx.call("GET", `/orgs/${ctx.orgId}/w3c-credentials/${creds[0]!.credentialRecordId}`, {
        token,
      }),
      200,
    );
    assert.equal((w3c._tags as Json).issuerId, ctx.issuer.did);
    assert.equal(((w3c.credential as Json).proof as Json).type, "Ed25519Signature2018");

    // every state change emitted credential.state_changed with the record
    const events = await outboxOf<WebhookEvent>(ctx.kv, ctx.orgId, "webhook");
    const states = events.filter((e) => e.payload.type === "credential.state_changed")
      .map((e) => [e.payload.data.previousState, e.payload.data.state]);
    assert.deepEqual(states, [
      [null, "offer-received"],
      ["offer-received", "request-sent"],
      ["request-sent", "credential-received"],
      ["credential-received", "done"],
    ]);
    const last = events.at(-1)!.payload.data;
    assert.equal(last.id, id);
    assert.deepEqual(last._tags, body._tags);
  } finally {
    await ctx.close();
  }
});

Deno.test("accept-credential alias under /didcomm does the same", async () => {
  const ctx = await createCredentialContext();
  try {
    const { id } = await exchangeToCredentialReceived(ctx);
    const res = await ctx.call("POST", "/didcomm/credentials/accept-credential", {
      token: await ctx.token({ [ctx.orgId]: ["member"] }),
      body: { credentialRecordId: id },
    });
    assert.equal((await expectJson(res, 200)).state, "done");
  } finally {
    await ctx.close();
  }
});

Deno.test("accept-credential: 401 without token, 400 bad bodies, 404 unknown or other org, 409 wrong state", async () => {
  const ctx = await createCredentialContext();
  try {
    const { id } = await exchangeToCredentialReceived(ctx);
    const token = await ctx.token({ [ctx.orgId]: ["issuer"] });
    const path = "/credentials/accept-credential";

    const noToken = await ctx.call("POST", path, { body: { credentialRecordId: "x" } });
    await expectJson(noToken, 401);
    assert.equal(noToken.headers.get("www-authenticate"), "Bearer");

    for (
      const body of [{}, { credentialRecordId: "not-a-uuid" }, { credentialRecordId: 5 }, {
        credentialRecordId: id,
        extra: 1,
      }, "[]"]
    ) {
      const res = await ctx.call("POST", path, { token, body });
      const err = await expectJson(res, 400);
      assert.equal(err.statusCode, 400);
      assert.equal(err.error, "Bad Request");
    }

    const unknown = crypto.randomUUID();
    const nf = await expectJson(
      await ctx.call("POST", path, { token, body: { credentialRecordId: unknown } }),
      404,
    );
    assert.match(String(nf.message), new RegExp(unknown));

    // a member of another org sees 404, not 403, and nothing changes
    const other = await ctx.token({ "org-b": ["owner"] });
    await expectJson(
      await ctx.call("POST", path, { token: other, body: { credentialRecordId: id } }),
      404,
    );
    await expectJson(await ctx.call("GET", `/credentials/${id}`, { token: other }), 404);
    await expectJson(
      await ctx.call("GET", `/orgs/${ctx.orgId}/credentials`, { token: other }),
      403,
    );
    assert.equal(
      (await ctx.kv.get<{ record: Json }>(keys.credential(ctx.orgId, id))).value!.record.state,
      "credential-received",
    );

    await expectJson(
      await ctx.call("POST", path, { token, body: { credentialRecordId: id } }),
      200,
    );
    const again = await expectJson(
      await ctx.call("POST", path, { token, body: { credentialRecordId: id } }),
      409,
    );
    assert.equal(
      again.message,
      `Credential exchange "${id}" is in state "done"; it must be "credential-received".`,
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("20 parallel accept-credential calls: one 200, nineteen 409, exactly one ack enqueued and sent", async () => {
  const ctx = await createCredentialContext();
  try {
    const { id } = await exchangeToCredentialReceived(ctx);
    await ctx.flush();
    const token = await ctx.token({ [ctx.orgId]: ["holder"] });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        ctx.call("POST", "/credentials/accept-credential", {
          token,
          body: { credentialRecordId: id },
        })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
    for (const r of results) {
      const body = await r.json();
      if (r.status === 409) assert.match(body.message, /is in state "done"/);
    }
    const acks = (await outboxOf<{ message: Json }>(ctx.kv, ctx.orgId, FAKE_DIDCOMM_KIND))
      .filter((m) => String(m.payload.message["@type"]).endsWith("/ack"));
    assert.equal(acks.length, 1);
    const sent = await ctx.flush();
    assert.equal(sent.filter((s) => s.message["@type"].endsWith("/ack")).length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("accept-offer and decline-offer through the routes; list filters by state, newest first", async () => {
  const ctx = await createCredentialContext();
  try {
    const { offerMessage } = await import("./helpers.ts");
    const token = await ctx.token({ [ctx.orgId]: ["holder"] });
    const thids = [crypto.randomUUID(), crypto.randomUUID()];
    for (const thid of thids) {
      await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
      await new Promise((r) => setTimeout(r, 3)); // record ids order by millisecond
    }
    const list = await expectJson(
      await ctx.call("GET", `/orgs/${ctx.orgId}/credentials?state=offer-received`, { token }),
      200,
    );
    const data = list.data as Json[];
    assert.deepEqual(data.map((r) => r.threadId), [...thids].reverse());
    assert.equal(list.nextCursor, null);

    const accepted = await expectJson(
      await ctx.call("POST", "/credentials/accept-offer", {
        token,
        body: { credentialRecordId: data[0]!.id },
      }),
      200,
    );
    assert.equal(accepted.state, "request-sent");
    const declined = await expectJson(
      await ctx.call("POST", "/credentials/decline-offer", {
        token,
        body: { credentialRecordId: data[1]!.id },
      }),
      200,
    );
    assert.equal(declined.state, "declined");
    const sent = await ctx.flush();
    const pr = sent.find((s) => s.message["@type"].endsWith("/problem-report"))!;
    assert.deepEqual(pr.message["~thread"], { thid: thids[0] });
    assert.equal((pr.message.description as Json).code, "issuance-abandoned");
    assert.ok(sent.some((s) => s.message["@type"].endsWith("/request-credential")));

    const twice = await expectJson(
      await ctx.call("POST", "/credentials/accept-offer", {
        token,
        body: { credentialRecordId: data[1]!.id },
      }),
      409,
    );
    assert.match(String(twice.message), /is in state "declined"; it must be "offer-received"/);

    const page = await expectJson(
      await ctx.call("GET", `/orgs/${ctx.orgId}/credentials?limit=1`, { token }),
      200,
    );
    assert.equal((page.data as Json[]).length, 1);
    assert.equal(typeof page.nextCursor, "string");
    await expectJson(
      await ctx.call("GET", `/orgs/${ctx.orgId}/credentials?state=nope`, { token }),
      400,
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("the OpenAPI document describes the credential routes and the record schema", async () => {
  const ctx = await createCredentialContext();
  try {
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200);
    const paths = doc.paths as Record<string, Json>;
    for (
      const p of [
        "/credentials/accept-credential",
        "/didcomm/credentials/accept-credential",
        "/credentials/accept-offer",
        "/credentials/decline-offer",
        "/credentials/{id}",
        "/orgs/{orgId}/credentials",
        "/orgs/{orgId}/w3c-credentials",
        "/orgs/{orgId}/w3c-credentials/{id}",
      ]
    ) assert.ok(paths[p], p);
    const schemas = (doc.components as Json).schemas as Record<string, Json>;
    const rec = schemas.CredentialExchangeRecord!;
    for (
      const f of [
        "id",
        "createdAt",
        "connectionId",
        "threadId",
        "protocolVersion",
        "credentialAttributes",
        "credentials",
        "metadata",
        "_tags",
      ]
    ) assert.ok((rec.properties as Json)[f], f);
  } finally {
    await ctx.close();
  }
});
