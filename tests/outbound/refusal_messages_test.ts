/**
 * Every refusal by the outbound policy names the setting that would allow the call, wherever the
 * address came from: an agent endpoint (configure and PATCH), a webhook URL, a did:web host, an
 * OpenID4VCI issuer and a DIDComm peer's endpoint. A strict instance (OUTBOUND_ALLOW_PRIVATE=false)
 * refuses loopback; names the injected lookup knows resolve to a public address.
 */
import assert from "node:assert/strict";
import { DIDCOMM_KIND } from "../../src/didcomm/outbound.ts";
import { generateEd25519KeyPair } from "../../src/crypto/ed25519.ts";
import { keys } from "../../src/kv/keys.ts";
import type { OutboxMessage } from "../../src/outbox/outbox.ts";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import { invitationTo } from "../didcomm/helpers.ts";
import { didHost, webDoc } from "../did/did_host.ts";

const PRIVATE = /OUTBOUND_ALLOW_PRIVATE=true/;
const HTTPS = /OUTBOUND_REQUIRE_HTTPS=false/;

function strictContext(env: Record<string, string> = {}): Promise<TestContext> {
  return createTestContext({
    env: { OUTBOUND_ALLOW_PRIVATE: "false", OUTBOUND_REQUIRE_HTTPS: "false", ...env },
    build: {
      resolveHost: (h) =>
        Promise.resolve(
          h === "agent.example" ? ["93.184.215.14"] : h === "localhost" ? ["127.0.0.1"] : [],
        ),
    },
  });
}

async function configure(ctx: TestContext, agentEndpoint: string): Promise<Response> {
  return await ctx.call("POST", "/orgs/org-a/agents/configure", {
    token: await ctx.token({ "org-a": ["owner"] }),
    body: { walletName: "AcmeAgent", agentEndpoint, apiKey: "k".repeat(32) },
  });
}

Deno.test("a refused agent endpoint (configure, PATCH) and webhook URL name OUTBOUND_ALLOW_PRIVATE", async () => {
  const ctx = await strictContext();
  try {
    const owner = await ctx.token({ "org-a": ["owner"] });
    for (const endpoint of ["http://localhost:8000/didcomm", "http://127.0.0.1:8000/didcomm"]) {
      const refused = await expectJson(await configure(ctx, endpoint), 400);
      assert.match(refused.message as string, /^agentEndpoint: .*loopback/, endpoint);
      assert.match(refused.message as string, PRIVATE, endpoint);
    }
    await expectJson(await configure(ctx, "https://agent.example/didcomm"), 201);
    const patched = await expectJson(
      await ctx.call("PATCH", "/orgs/org-a/agents", {
        token: owner,
        body: { agentEndpoint: "http://localhost:8000/didcomm" },
      }),
      400,
    );
    assert.match(patched.message as string, PRIVATE);

    const hook = await expectJson(
      await ctx.call("POST", "/notification/register/webhook-endpoint", {
        token: owner,
        body: { orgId: "org-a", notificationWebhook: "http://localhost:9000/hook" },
      }),
      400,
    );
    assert.match(hook.message as string, /^notificationWebhook: .*loopback/);
    assert.match(hook.message as string, PRIVATE);
  } finally {
    await ctx.close();
  }
});

Deno.test("a refused http URL names OUTBOUND_REQUIRE_HTTPS (agent endpoint, webhook URL)", async () => {
  const ctx = await strictContext({ OUTBOUND_REQUIRE_HTTPS: "true" });
  try {
    const agent = await expectJson(await configure(ctx, "http://agent.example/didcomm"), 400);
    assert.match(JSON.stringify(agent), HTTPS);
    const hook = await expectJson(
      await ctx.call("POST", "/notification/register/webhook-endpoint", {
        token: await ctx.token({ "org-a": ["owner"] }),
        body: { orgId: "org-a", notificationWebhook: "http://agent.example/hook" },
      }),
      400,
    );
    assert.match(hook.message as string, HTTPS);
  } finally {
    await ctx.close();
  }
});

Deno.test("a did:web on a loopback host: the resolution error names OUTBOUND_ALLOW_PRIVATE", async () => {
  const host = didHost({ "/.well-known/did.json": (_req, did) => Response.json(webDoc(did)) });
  const ctx = await strictContext();
  try {
    const res = await ctx.call("GET", `/dids/${host.did}`, { token: await ctx.token() });
    const body = await expectJson(res, 500);
    const meta = body.didResolutionMetadata as Record<string, string>;
    assert.equal(meta.error, "internalError");
    assert.match(meta.message!, /loopback/);
    assert.match(meta.message!, PRIVATE);
    assert.equal(host.seen.length, 0, "nothing reached the host");
  } finally {
    await ctx.close();
    await host.close();
  }
});

Deno.test("an OpenID4VCI offer from a loopback issuer: 400 naming OUTBOUND_ALLOW_PRIVATE", async () => {
  const ctx = await strictContext();
  try {
    await expectJson(await configure(ctx, "https://agent.example/didcomm"), 201);
    const uri = `openid-credential-offer://?credential_offer_uri=${
      encodeURIComponent("http://127.0.0.1:9/offer")
    }`;
    const res = await ctx.call("POST", "/orgs/org-a/openid4vc/offers", {
      token: await ctx.token({ "org-a": ["holder"] }),
      body: { credentialOffer: uri },
    });
    const body = await expectJson(res, 400);
    assert.match(body.message as string, PRIVATE);
  } finally {
    await ctx.close();
  }
});

Deno.test("a DIDComm peer endpoint on loopback: the dead message's error names OUTBOUND_ALLOW_PRIVATE", async () => {
  const ctx = await strictContext();
  try {
    await expectJson(await configure(ctx, "https://agent.example/didcomm"), 201);
    const kp = await generateEd25519KeyPair();
    await expectJson(
      await ctx.call("POST", "/orgs/org-a/connections/receive-invitation", {
        token: await ctx.token({ "org-a": ["holder"] }),
        body: { invitation: invitationTo(kp.verkey, "http://127.0.0.1:9/didcomm") },
      }),
      201,
    );
    await ctx.services.dispatcher.runOnce();
    const sent: OutboxMessage[] = [];
    const prefix = keys.outboxByOrgPrefix("org-a", DIDCOMM_KIND);
    for await (const p of ctx.kv.list<string>({ prefix })) {
      const m = await ctx.kv.get<OutboxMessage>(keys.outboxMessage(p.value));
      if (m.value) sent.push(m.value);
    }
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.status, "dead", "a refused address is not retried");
    assert.match(sent[0]!.lastError ?? "", PRIVATE);
  } finally {
    await ctx.close();
  }
});
