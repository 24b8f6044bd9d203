/**
 * Which KV reads may be eventual (CONTRACT "DID resolution", at the edge): cached resolution
 * results are read with `consistency: "eventual"` (a nearby replica on Deno Deploy), records that
 * decide what a request may do (agents and their keys, tokens and their attempt counters,
 * exchanges, outbox leases) always strongly. A KV handle that records every read is given to the
 * service's own composition, and real requests drive it.
 */
import assert from "node:assert/strict";
import { keys } from "../../src/kv/mod.ts";
import { createTestContext } from "../support/context.ts";
import { drainOutbox } from "../support/outbox.ts";
import { configure } from "../agents/helpers.ts";
import { receiver, register, sendTest } from "../webhooks/helpers.ts";
import { didHost, json, webDoc } from "./did_host.ts";

/** One read: the first element of its key (the collection) and its consistency. */
interface Read {
  collection: string;
  consistency: Deno.KvConsistencyLevel;
}

/** `kv` recording every `get`, `getMany` and `list` into `reads` (default consistency: strong). */
function recording(kv: Deno.Kv, reads: Read[]): Deno.Kv {
  const note = (key: Deno.KvKey | undefined, options?: { consistency?: Deno.KvConsistencyLevel }) =>
    reads.push({ collection: String(key?.[0]), consistency: options?.consistency ?? "strong" });
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "get") {
        return (key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) => {
          note(key, o);
          return value.call(target, key, o);
        };
      }
      if (prop === "getMany") {
        return (list: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) => {
          for (const key of list) note(key, o);
          return value.call(target, list, o);
        };
      }
      if (prop === "list") {
        return (selector: Deno.KvListSelector, o?: Deno.KvListOptions) => {
          const s = selector as { prefix?: Deno.KvKey; start?: Deno.KvKey };
          note(s.prefix?.length ? s.prefix : s.start, o);
          return value.call(target, selector, o);
        };
      }
      return value.bind(target);
    },
  });
}

/** Collections whose records decide what a request may do: always read strongly. */
const DECIDING = [
  "agent",
  "agent_by_api_key",
  "agent_token_attempts",
  "token_attempts_by_address",
  "credential_by_id",
  "webhook",
  "outbox",
  "outbox_due",
];

Deno.test("KV: cached resolutions are read eventually, records that decide what a request may do strongly", async () => {
  const reads: Read[] = [];
  const host = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  const hooks = receiver();
  const ctx = await createTestContext({ wrapKv: (kv) => recording(kv, reads) });
  try {
    // A cached resolution: fetched and stored, then read back from KV once memory forgot it.
    const token = await ctx.token();
    for (let i = 0; i < 2; i++) {
      ctx.services.resolver.clearMemory();
      const res = await ctx.call("GET", `/dids/${host.did}`, { token });
      assert.equal(res.status, 200);
      assert.equal(JSON.parse(await res.text()).didResolutionMetadata.servedFromCache, i === 1);
    }
    assert.ok(
      (await ctx.kv.get(keys.didCache(host.did))).value,
      "the resolution was stored in KV",
    );

    // An agent, its API key exchanged for a token (attempt counters), the token used on an org
    // route (its agent is read again on every use), an exchange looked up, an outbox lease.
    const { res, apiKey } = await configure(ctx);
    assert.equal(res.status, 201, await res.clone().text());
    const minted = await ctx.call("POST", "/agent/token", { headers: { authorization: apiKey } });
    assert.equal(minted.status, 200);
    const agentToken = (await minted.json()).token;
    const connections = await ctx.call("GET", "/orgs/org-a/connections", { token: agentToken });
    assert.equal(connections.status, 200, await connections.clone().text());
    await connections.body?.cancel();
    const exchange = await ctx.call("GET", `/credentials/${crypto.randomUUID()}`, { token });
    assert.equal(exchange.status, 404);
    await exchange.body?.cancel();
    await register(ctx, "org-a", hooks.hook);
    await sendTest(ctx, "org-a");
    await ctx.services.dispatcher.runOnce();
    await drainOutbox(ctx.kv);
    assert.ok(
      hooks.got.some((g) => JSON.parse(g.body).type === "webhook.test"),
      "the test event was delivered under a lease",
    );

    const byCollection = new Map<string, Set<string>>();
    for (const r of reads) {
      const set = byCollection.get(r.collection) ?? new Set();
      set.add(r.consistency);
      byCollection.set(r.collection, set);
    }
    assert.deepEqual([...byCollection.get("did_cache") ?? []], ["eventual"]);
    for (const collection of DECIDING) {
      assert.deepEqual(
        [...byCollection.get(collection) ?? []],
        ["strong"],
        `reads of ${collection}: ${[...byCollection.get(collection) ?? ["none"]]}`,
      );
    }
  } finally {
    await ctx.close();
    await host.close();
    await hooks.close();
  }
});
