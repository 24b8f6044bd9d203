/**
 * The one conflict policy (`atomicUpdate`, `src/kv/store.ts`): a request whose commit loses its
 * race to another writer reads again and answers from what it reads, so another process writing
 * at the same time never fails a request by itself (CONTRACT "Running": scale-out). The other
 * writer is real: a write through the plain KV handle between the request's read and its commit.
 */
import assert from "node:assert/strict";
import { keys } from "../../src/kv/mod.ts";
import { CONFLICT_TRIES } from "../../src/kv/store.ts";
import { configure } from "../agents/helpers.ts";
import { createTestContext, expectJson, serveLocal } from "../support/context.ts";
import { type RaceOptions, racingKv } from "../support/racing_kv.ts";

const ENDPOINT = "/notification/register/webhook-endpoint";
const HOOK = "http://127.0.0.1:9/hook";

async function racingContext(race: RaceOptions["race"], write?: RaceOptions["write"]) {
  let racer: ReturnType<typeof racingKv> | undefined;
  const ctx = await createTestContext({
    wrapKv: (kv) => (racer = racingKv(kv, { race, write })).kv,
  });
  const token = await ctx.token({ "org-a": ["owner"] });
  return { ctx, token, racer: racer! };
}

const isWebhook = (k: Deno.KvKey) => k[0] === "webhook" && k[1] === "org-a";

Deno.test("webhook endpoint writes that lose a race to another writer are read again and succeed", async () => {
  const { ctx, token, racer } = await racingContext(isWebhook);
  try {
    const body = { orgId: "org-a", notificationWebhook: HOOK };
    await expectJson(await ctx.call("POST", ENDPOINT, { token, body }), 201);

    racer.arm();
    const other = { orgId: "org-a", notificationWebhook: `${HOOK}/2` };
    const again = await expectJson(await ctx.call("POST", ENDPOINT, { token, body: other }), 201);
    assert.equal((again.data as { notificationWebhook: string }).notificationWebhook, `${HOOK}/2`);

    racer.arm();
    const rotated = await expectJson(
      await ctx.call("POST", "/notification/webhook-endpoint/rotate-secret", {
        token,
        body: { orgId: "org-a" },
      }),
      200,
    );
    assert.match((rotated.data as { secret: string }).secret, /^whsec_/);

    racer.arm();
    await expectJson(
      await ctx.call("POST", "/notification/webhook-endpoint/test", {
        token,
        body: { orgId: "org-a" },
      }),
      202,
    );

    racer.arm();
    const gone = await ctx.call("DELETE", "/notification/webhook-endpoint?orgId=org-a", { token });
    assert.equal(gone.status, 204);
    assert.equal((await ctx.kv.get(keys.webhook("org-a"))).value, null);
    assert.equal(racer.raced, 4, "each write lost one race");
  } finally {
    await ctx.close();
  }
});

Deno.test("DELETE /orgs/{orgId}/agents that loses a race to another writer is read again and succeeds", async () => {
  const { ctx, token, racer } = await racingContext((k) => k[0] === "agent" && k[1] === "org-a");
  try {
    await expectJson((await configure(ctx)).res, 201);
    racer.arm();
    const res = await ctx.call("DELETE", "/orgs/org-a/agents", { token });
    assert.equal(res.status, 204);
    assert.equal(racer.raced, 1);
    assert.equal((await ctx.kv.get(keys.agent("org-a"))).value, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("after a lost race the fresh state decides: a webhook endpoint removed meanwhile is 404", async () => {
  const { ctx, token, racer } = await racingContext(isWebhook, (kv, key) => kv.delete(key));
  try {
    const body = { orgId: "org-a", notificationWebhook: HOOK };
    await expectJson(await ctx.call("POST", ENDPOINT, { token, body }), 201);
    racer.arm();
    const res = await ctx.call("POST", "/notification/webhook-endpoint/rotate-secret", {
      token,
      body: { orgId: "org-a" },
    });
    const err = await expectJson(res, 404);
    assert.match(String(err.message), /No webhook endpoint is registered/);
  } finally {
    await ctx.close();
  }
});

Deno.test("only a record that keeps changing through every try is a 409, and it says so", async () => {
  const { ctx, token, racer } = await racingContext(isWebhook);
  try {
    const body = { orgId: "org-a", notificationWebhook: HOOK };
    await expectJson(await ctx.call("POST", ENDPOINT, { token, body }), 201);
    racer.arm(CONFLICT_TRIES);
    const res = await ctx.call("POST", "/notification/webhook-endpoint/rotate-secret", {
      token,
      body: { orgId: "org-a" },
    });
    const err = await expectJson(res, 409);
    assert.match(String(err.message), /kept changing/);
    assert.equal(racer.raced, CONFLICT_TRIES);
  } finally {
    await ctx.close();
  }
});

Deno.test("a 410 Gone disables the endpoint after a lost race, unless it was registered again meanwhile", async () => {
  const rx = serveLocal(() => new Response(null, { status: 410 }));
  const reRegistered = async (kv: Deno.Kv, key: Deno.KvKey) => {
    const cur = await kv.get<{ updatedAt: string }>(key);
    await kv.set(key, { ...cur.value!, updatedAt: new Date(Date.now() + 1000).toISOString() });
  };
  try {
    for (const [write, disabled] of [[undefined, true], [reRegistered, false]] as const) {
      const { ctx, token, racer } = await racingContext(isWebhook, write);
      try {
        const body = { orgId: "org-a", notificationWebhook: `${rx.url}/hook` };
        await expectJson(await ctx.call("POST", ENDPOINT, { token, body }), 201);
        await expectJson(
          await ctx.call("POST", "/notification/webhook-endpoint/test", {
            token,
            body: { orgId: "org-a" },
          }),
          202,
        );
        racer.arm();
        await ctx.services.dispatcher.runOnce();
        assert.equal(racer.raced, 1, "the disabling commit lost one race");
        const view = await expectJson(
          await ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a", { token }),
          200,
        );
        assert.equal(view.enabled, !disabled, write ? "registered again" : "touched");
      } finally {
        await ctx.close();
      }
    }
  } finally {
    await rx.close();
  }
});
