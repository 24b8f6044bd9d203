/**
 * In-process cost of `GET /dids/{did}` by layer: the caching resolver (memo hit, LRU hit, miss),
 * the whole app (the DID door in front of the router), and a bare handler returning the same bytes. Run: deno task bench
 * (or `deno bench --allow-all tests/bench/did_resolver_bench.ts`).
 */
import { createApp } from "../../src/app.ts";
import { readinessCheck } from "../../src/boot/readiness.ts";
import { negotiate } from "../../src/did/http/content_negotiation.ts";
import { createDidResolver } from "../../src/did/mod.ts";
import { keyMethod } from "../../src/did/methods/key.ts";
import { parseDid } from "../../src/did/syntax.ts";
import { createTestContext } from "../support/context.ts";
import { didHost, json, webDoc } from "../did/did_host.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const host = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
const ctx = await createTestContext({ env: { DID_CACHE_TTL_SECONDS: "86400" } });
const token = await ctx.token();
const resolver = ctx.services.resolver;
await resolver.resolve(KEY_DID);
await resolver.resolve(host.did);
const app = createApp(ctx.services, { ready: readinessCheck(ctx.services) });
const keyBytes = new TextEncoder().encode(JSON.stringify(await resolver.resolve(KEY_DID)));
const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
const keyUrl = `http://127.0.0.1/dids/${KEY_DID}`;
const webUrl = `http://127.0.0.1/dids/${host.did}`;
const fresh = createDidResolver(ctx.services, { memoSize: 1 });
const parsed = parseDid(KEY_DID)!;

Deno.bench("request construction only (baseline of the app rows)", { group: "http" }, () => {
  new Request(keyUrl, { headers });
});
Deno.bench("bare handler: same bytes", { group: "http", baseline: true }, async () => {
  const req = new Request(keyUrl, { headers });
  await Promise.resolve(
    new Response(keyBytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": "application/json" },
    }),
  );
  void req;
});
Deno.bench("app GET /dids/{did:key} (memo hit)", { group: "http" }, async () => {
  const res = await app.fetch(new Request(keyUrl, { headers }));
  await res.arrayBuffer();
});
Deno.bench("app GET /dids/{did:web} (LRU hit)", { group: "http" }, async () => {
  const res = await app.fetch(new Request(webUrl, { headers }));
  await res.arrayBuffer();
});
Deno.bench("app GET /health (framework floor)", { group: "http" }, async () => {
  const res = await app.fetch(new Request("http://127.0.0.1/health"));
  await res.arrayBuffer();
});

Deno.bench("lookup did:key memo hit", { group: "resolver" }, async () => {
  await resolver.lookup(KEY_DID);
});
Deno.bench("lookup did:web memory hit", { group: "resolver" }, async () => {
  await resolver.lookup(host.did);
});
Deno.bench(
  "lookup did:key miss (memo of 1, alternating DIDs)",
  { group: "resolver" },
  async () => {
    await fresh.lookup(KEY_DID);
    await fresh.lookup("did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp");
  },
);
const webMethod = ctx.services.resolver.registry.methods.get("web")!;
const webParsed = parseDid(host.did)!;
Deno.bench("did:web resolve, uncached (local http host)", { group: "resolver" }, async () => {
  await webMethod.resolve(webParsed, {});
});
Deno.bench("keyMethod.resolve (no cache)", { group: "resolver" }, async () => {
  await keyMethod.resolve(parsed, {});
});
Deno.bench("token verify (cached)", { group: "parts" }, async () => {
  await ctx.services.verifier.verify(token);
});
Deno.bench("negotiate(Accept) memo", { group: "parts" }, () => {
  negotiate("application/json");
});

globalThis.addEventListener("unload", () => {
  void host.close();
  void ctx.close();
});
