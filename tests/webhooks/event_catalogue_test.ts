/**
 * The event catalogue (`src/webhooks/events.ts`) is the contract's list of event types, every one
 * of them is documented under `webhooks` in `/openapi.json` with the event envelope and its `data`
 * schema, and the events the service really sends match their documented schema.
 */
import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import { EVENT_CATALOGUE, EVENT_TYPES, type EventType } from "../../src/webhooks/mod.ts";
import { expectJson, serveLocal } from "../support/context.ts";
import { pendingOutbox } from "../support/outbox.ts";
import { generateEd25519KeyPair } from "../../src/crypto/ed25519.ts";
import { configureAgent, invitationTo } from "../didcomm/helpers.ts";
import { adminToken, receiver, register, sendTest, webhookContext } from "./helpers.ts";
import { createProofContext, definition, requestMessage } from "../present_proof/helpers.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";

type Json = Record<string, unknown>;

/** CONTRACT.md "Notifications": the event types. */
const CONTRACT_TYPES = [
  "credential.state_changed",
  "credential.status_changed",
  "connection.state_changed",
  "presentation.state_changed",
  "proof.state_changed",
  "agent.configured",
  "webhook.test",
  "message.delivery_failed",
];

Deno.test("the event catalogue holds exactly the contract's event types", () => {
  assert.deepEqual([...EVENT_TYPES].sort(), [...CONTRACT_TYPES].sort());
});

Deno.test("/openapi.json lists every catalogue event under webhooks: a POST with the Standard Webhooks headers and the envelope with that type's data", async () => {
  const ctx = await webhookContext();
  try {
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200);
    const webhooks = (doc.webhooks ?? {}) as Record<string, { post?: Json }>;
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
    for (const type of EVENT_TYPES) {
      const post = webhooks[type]?.post;
      assert.ok(post, `webhooks["${type}"] is missing`);
      const headers = (post.parameters as Json[]).filter((p) => p.in === "header").map((p) =>
        p.name
      );
      assert.deepEqual(headers, ["webhook-id", "webhook-timestamp", "webhook-signature"], type);
      const body = post.requestBody as { content: Record<string, { schema: { $ref: string } }> };
      const ref = body.content["application/json"]!.schema.$ref;
      const envelope = schemas[ref.replace("#/components/schemas/", "")]!;
      const props = envelope.properties as Record<string, Json>;
      assert.deepEqual(Object.keys(props), ["id", "type", "timestamp", "orgId", "data"], type);
      assert.deepEqual(envelope.required, ["id", "type", "timestamp", "orgId", "data"], type);
      assert.deepEqual(props.type!.enum, [type]);
      const data = props.data!;
      assert.ok(data.properties || data.anyOf, `${type}: data has a schema`);
      assert.ok((post.responses as Json)["2XX"], type);
    }
    assert.deepEqual(Object.keys(webhooks).sort(), [...EVENT_TYPES].sort());
  } finally {
    await ctx.close();
  }
});

/** Parses an event against its catalogue schema; an object `data` may carry no field it lacks. */
function checkEvent(body: string): EventType {
  const event = JSON.parse(body) as { type: EventType; data: Json };
  const def = EVENT_CATALOGUE[event.type];
  assert.ok(def, `unknown event type ${event.type}`);
  z.object({
    id: z.string(),
    type: z.literal(event.type),
    timestamp: z.iso.datetime(),
    orgId: z.string(),
    data: def.data,
  }).strict().parse(event);
  if (def.data instanceof z.ZodObject) {
    const documented = Object.keys(def.data.shape);
    for (const k of Object.keys(event.data)) {
      assert.ok(documented.includes(k), `${event.type}: data.${k} is sent but not documented`);
    }
  }
  return event.type;
}

Deno.test("the events the service sends match their catalogue schema (agent, webhook test, connection, failed DIDComm message)", async () => {
  const ctx = await webhookContext();
  const rx = receiver();
  // A DIDComm peer that refuses every message: the message is dead at once.
  const peer = serveLocal(() => new Response("no", { status: 400 }));
  try {
    await register(ctx, "org-a", rx.hook);
    const owner = await adminToken(ctx, { "org-a": ["owner"] });
    await configureAgent(ctx, "org-a", "http://127.0.0.1:9/didcomm");
    await expectJson(
      await ctx.call("PATCH", "/orgs/org-a/agents", {
        token: owner,
        body: { autoAcceptCredentials: "always" },
      }),
      200,
    );
    await sendTest(ctx, "org-a");
    const kp = await generateEd25519KeyPair();
    await expectJson(
      await ctx.call("POST", "/orgs/org-a/connections/receive-invitation", {
        token: owner,
        body: { invitation: invitationTo(kp.verkey, `${peer.url}/didcomm`) },
      }),
      201,
    );
    // Each round delivers what is due; the dead DIDComm message's event is due in the next one.
    while (await ctx.services.dispatcher.runOnce() > 0) { /* again */ }
    assert.equal(await pendingOutbox(ctx.kv), 0);
    const seen = new Set(rx.got.map((g) => checkEvent(g.body)));
    for (
      const t of [
        "agent.configured",
        "webhook.test",
        "connection.state_changed",
        "message.delivery_failed",
      ]
    ) assert.ok(seen.has(t as EventType), `no ${t} among ${[...seen]}`);
  } finally {
    await peer.close();
    await rx.close();
    await ctx.close();
  }
});

Deno.test("a proof request's proof.state_changed events match their catalogue schema", async () => {
  const ctx = await createProofContext();
  try {
    await ctx.store({ name: "Alice" });
    await ctx.receive(requestMessage(definition(["name", "$.credentialSubject.name"])));
    const sent: string[] = [];
    for await (const e of ctx.kv.list<OutboxMessage<Json>>({ prefix: ["outbox"] })) {
      if (e.value.kind === "webhook") sent.push(checkEvent(JSON.stringify(e.value.payload)));
    }
    assert.ok(sent.includes("proof.state_changed"), `events: ${sent}`);
  } finally {
    await ctx.close();
  }
});

Deno.test("an OpenID4VP request's presentation.state_changed event matches its catalogue schema", async () => {
  const ctx = await webhookContext();
  try {
    const owner = await adminToken(ctx, { "org-a": ["owner"] });
    await configureAgent(ctx, "org-a", "http://127.0.0.1:9/didcomm");
    // An unsigned request by value (redirect_uri: prefix): nothing is fetched.
    const responseUri = "https://verifier.example/cb";
    const query = new URLSearchParams({
      response_type: "vp_token",
      client_id: `redirect_uri:${responseUri}`,
      response_mode: "direct_post",
      response_uri: responseUri,
      nonce: crypto.randomUUID(),
      dcql_query: JSON.stringify({
        credentials: [{ id: "pid", format: "dc+sd-jwt", claims: [{ path: ["given_name"] }] }],
      }),
      client_metadata: JSON.stringify({ client_name: "Verifier" }),
    });
    await expectJson(
      await ctx.call("POST", "/orgs/org-a/openid4vp/requests", {
        token: owner,
        body: { request: `openid4vp://?${query}` },
      }),
      201,
    );
    const sent: string[] = [];
    for await (const e of ctx.kv.list<OutboxMessage<Json>>({ prefix: ["outbox"] })) {
      if (e.value.kind === "webhook") sent.push(checkEvent(JSON.stringify(e.value.payload)));
    }
    assert.ok(sent.includes("presentation.state_changed"), `events: ${sent}`);
  } finally {
    await ctx.close();
  }
});
