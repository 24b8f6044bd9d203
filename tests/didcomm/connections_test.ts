import assert from "node:assert/strict";
import { base64urlnopad } from "@scure/base";
import { keys } from "../../src/kv/keys.ts";
import type { OutboxMessage } from "../../src/outbox/outbox.ts";
import type { WebhookEvent } from "../../src/webhooks/events.ts";
import { expectJson } from "../support/context.ts";
import {
  agentToken,
  configureAgent,
  type ServedContext,
  servedContext,
  waitFor,
} from "./helpers.ts";
import { startTestPeer, type TestPeer } from "./test_peer.ts";

const ORG = "org-a";

async function setup(
  peerOpts = {},
): Promise<{ ctx: ServedContext; peer: TestPeer; token: string }> {
  const ctx = await servedContext();
  const peer = await startTestPeer(peerOpts);
  ctx.services.dispatcher.start();
  await configureAgent(ctx, ORG, ctx.endpoint);
  return { ctx, peer, token: await ctx.token({ [ORG]: ["member"] }) };
}

async function stateEvents(kv: Deno.Kv, connectionId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list<OutboxMessage<WebhookEvent>>({ prefix: ["outbox"] })) {
    const ev = e.value.payload;
    if (e.value.kind === "webhook" && ev.type === "connection.state_changed") {
      if (ev.data.connectionId === connectionId) out.push(String(ev.data.state));
    }
  }
  return out;
}

Deno.test("DID Exchange: request, signed response, complete; record and state events as Credo's", async () => {
  const { ctx, peer, token } = await setup();
  try {
    const inv = peer.invitation();
    const res = await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
      token,
      body: { invitationUrl: peer.invitationUrl(inv) },
    });
    const created = await expectJson(res, 201);
    assert.equal(created.state, "request-sent");
    assert.match(
      String(created.id),
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.deepEqual(Object.keys(created).sort(), [
      "createdAt",
      "did",
      "id",
      "outOfBandId",
      "protocol",
      "role",
      "state",
      "theirDid",
      "theirLabel",
      "threadId",
      "updatedAt",
    ]);
    const request = await peer.waitFor("https://didcomm.org/didexchange/1.1/request");
    assert.equal(request["~thread"]?.pthid, inv["@id"]);
    assert.equal(request.label, "HolderAgent");
    assert.equal(request.did, created.did);
    const complete = await peer.waitFor("https://didcomm.org/didexchange/1.1/complete");
    assert.deepEqual(complete["~thread"], { thid: request["@id"], pthid: inv["@id"] });
    const done = await waitFor("completed", async () => {
      const r = await expectJson(
        await ctx.call("GET", `/orgs/${ORG}/connections/${created.id}`, { token }),
        200,
      );
      return r.state === "completed" ? r : undefined;
    });
    assert.equal(done.theirDid, peer.did);
    assert.equal(done.theirLabel, "Test Peer");
    assert.equal(done.threadId, request["@id"]);
    assert.deepEqual(await stateEvents(ctx.kv, String(created.id)), [
      "invitation-received",
      "request-sent",
      "response-received",
      "completed",
    ]);
    // The complete message came from the key of our DID, to the key of theirs.
    const from = peer.received.find((r) => r.message === complete)!.senderKey!;
    const ptr = await ctx.kv.get(keys.connectionByKey(ORG, from));
    assert.equal(ptr.value, created.id);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("DID Exchange: a response whose did_rotate signature fails is abandoned with a problem report", async () => {
  const { ctx, peer, token } = await setup({ tamperSignature: true });
  try {
    const created = await expectJson(
      await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
        token,
        body: { invitation: peer.invitation() },
      }),
      201,
    );
    const report = await peer.waitFor("https://didcomm.org/didexchange/1.1/problem_report");
    assert.equal(report["problem-code"], "response_not_accepted");
    const rec = await waitFor("abandoned", async () => {
      const r = await expectJson(
        await ctx.call("GET", `/orgs/${ORG}/connections/${created.id}`, { token }),
        200,
      );
      return r.state === "abandoned" ? r : undefined;
    });
    assert.match(String(rec.errorMessage), /signature does not verify/);
    assert.equal(peer.received.some((r) => r.message["@type"].endsWith("/complete")), false);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("receive-invitation: 401, 403, 400 for unusable invitations, 409 twice or without agent", async () => {
  const { ctx, peer, token } = await setup({ manual: true });
  try {
    const path = `/orgs/${ORG}/connections/receive-invitation`;
    const inv = peer.invitation();
    assert.equal((await ctx.call("POST", path, { body: { invitation: inv } })).status, 401);
    const other = await ctx.token({ "org-b": ["owner"] });
    await expectJson(
      await ctx.call("POST", path, { token: other, body: { invitation: inv } }),
      403,
    );
    const bad = async (body: unknown, re: RegExp) => {
      const r = await expectJson(await ctx.call("POST", path, { token, body }), 400);
      assert.match(String(r.message), re);
    };
    await bad({}, /exactly one/);
    await bad({ invitation: inv, invitationUrl: "https://x/?oob=e30" }, /exactly one/);
    await bad({ invitationUrl: "not a url" }, /absolute URL/);
    // A link without oob/c_i is fetched as a short link; this host does not resolve.
    await bad({ invitationUrl: "https://x.invalid/path" }, /could not be resolved/);
    await bad({ invitationUrl: "https://x.example/?oob=%%%" }, /base64url/);
    await bad(
      { invitation: { ...inv, handshake_protocols: ["https://didcomm.org/foo/1.0"] } },
      /handshake_protocols/,
    );
    await bad(
      { invitation: { ...inv, "@type": "https://didcomm.org/out-of-band/1.1/other" } },
      /not supported/,
    );
    const noKeys = {
      ...inv,
      services: [{
        type: "did-communication",
        recipientKeys: ["nope"],
        serviceEndpoint: peer.endpoint,
      }],
    };
    await bad({ invitation: noKeys }, /recipientKeys/);
    await bad({ invitation: { ...inv, services: ["did:web:example.com"] } }, /cannot be resolved/);
    await bad({ invitation: inv, extra: 1 }, /Unknown field/);

    const legacy = {
      "@type": "https://didcomm.org/connections/1.0/invitation",
      "@id": crypto.randomUUID(),
      label: "Legacy",
      recipientKeys: [peer.verkey],
      serviceEndpoint: peer.endpoint,
    };
    const c_i = base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(legacy)));
    const l = await expectJson(
      await ctx.call("POST", path, {
        token,
        body: { invitationUrl: `${peer.endpoint}?c_i=${c_i}` },
      }),
      201,
    );
    assert.equal(l.protocol, "https://didcomm.org/connections/1.0");
    const req = await peer.waitFor("https://didcomm.org/connections/1.0/request");
    assert.equal((req.connection as Record<string, unknown>).DID, l.did);

    await expectJson(await ctx.call("POST", path, { token, body: { invitation: inv } }), 201);
    const again = await expectJson(
      await ctx.call("POST", path, { token, body: { invitation: inv } }),
      409,
    );
    assert.match(String(again.message), /already received/);

    const t3 = await ctx.token({ "org-c": ["holder"] });
    const none = await expectJson(
      await ctx.call("POST", "/orgs/org-c/connections/receive-invitation", {
        token: t3,
        body: { invitation: peer.invitation() },
      }),
      409,
    );
    assert.match(String(none.message), /no agent configured/);
  } finally {
    await peer.close();
    await ctx.close();
  }
});

Deno.test("connections list newest first with cursor; another org's agent token gets 404 for a record, 403 for the org", async () => {
  const { ctx, peer, token } = await setup({ manual: true });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await expectJson(
        await ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
          token,
          body: { invitation: peer.invitation() },
        }),
        201,
      );
      ids.push(String(r.id));
    }
    const p1 = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/connections?limit=2`, { token }),
      200,
    );
    assert.deepEqual((p1.data as { id: string }[]).map((c) => c.id), [ids[2], ids[1]]);
    assert.equal(typeof p1.nextCursor, "string");
    const p2 = await expectJson(
      await ctx.call(
        "GET",
        `/orgs/${ORG}/connections?limit=2&cursor=${encodeURIComponent(String(p1.nextCursor))}`,
        { token },
      ),
      200,
    );
    assert.deepEqual((p2.data as { id: string }[]).map((c) => c.id), [ids[0]]);
    assert.equal(p2.nextCursor, null);
    const filtered = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/connections?state=completed`, { token }),
      200,
    );
    assert.deepEqual(filtered.data, []);
    await expectJson(await ctx.call("GET", `/orgs/${ORG}/connections?limit=0`, { token }), 400);

    const b = await configureAgent(ctx, "org-b", ctx.endpoint);
    const tb = await agentToken(ctx, String(b.apiKey));
    await expectJson(
      await ctx.call("GET", `/orgs/org-b/connections/${ids[0]}`, { token: tb }),
      404,
    );
    const listB = await expectJson(
      await ctx.call("GET", `/orgs/org-b/connections`, { token: tb }),
      200,
    );
    assert.deepEqual(listB.data, []);
    await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/connections/${ids[0]}`, { token: tb }),
      403,
    );
    await expectJson(await ctx.call("GET", `/orgs/${ORG}/connections/${ids[0]}`, { token }), 200);
  } finally {
    await peer.close();
    await ctx.close();
  }
});
