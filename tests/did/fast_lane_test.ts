/**
 * The fast lane of `GET /dids/{did}` (src/did/routes.ts, src/http/fast_lane.ts): when it answers,
 * it answers byte for byte what the route answers; everything it cannot answer that way it
 * declines, and the route decides (401s included).
 */
import assert from "node:assert/strict";
import { didRoutes } from "../../src/did/mod.ts";
import { setLogLevel } from "../../src/log.ts";
import { createTestContext, signToken, type TestContext } from "../support/context.ts";
import { didHost, json, webDoc } from "./did_host.ts";
import { laneRequest as get, snapshot } from "./lane_requests.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function rawLaneOf(ctx: TestContext) {
  // A second router on the same services shares their resolver and token cache.
  const s = ctx.services;
  return didRoutes({
    resolver: s.resolver,
    verifier: s.verifier,
    isPublic: s.config.didResolutionPublic,
    now: s.now,
  }).lane;
}

/** The lane where it must answer from the caches at once (or decline). */
function laneOf(ctx: TestContext): (req: Request) => Response | undefined {
  const lane = rawLaneOf(ctx);
  return (req) => {
    const res = lane(req);
    assert.ok(!(res instanceof Promise), `${req.url}: resolved instead of answered from a cache`);
    return res;
  };
}

Deno.test("fast lane: a warm GET /dids gets exactly the route's answer", async () => {
  let clock = Date.parse("2026-11-23T12:00:00Z");
  const h = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  const ctx = await createTestContext({ now: () => clock });
  try {
    const lane = laneOf(ctx);
    const token = await signToken(ctx.idp, { expiresIn: "1h" });
    const auth = { authorization: `Bearer ${token}` };
    const cases: [string, Record<string, string>][] = [
      [`/dids/${KEY_DID}`, {}],
      [`/dids/${KEY_DID}`, { accept: "application/did+json" }],
      [`/dids/${KEY_DID}`, { accept: "application/did-resolution" }],
      [`/dids/${encodeURIComponent(KEY_DID)}`, {}],
      [`/dids/${h.did}`, {}],
      [`/dids/${h.did}`, { accept: "application/did+ld+json" }],
    ];
    for (const [path, headers] of cases) {
      // Cold: the lane declines; the route resolves (and verifies the token).
      await (await ctx.app.request(path, { headers: { ...auth, ...headers } })).body?.cancel();
      clock += 7_000; // the did:web answer's max-age counts down: both must agree on it
      const fast = lane(get(path, { ...auth, ...headers }));
      assert.ok(fast, `the lane answers a warm ${path} ${JSON.stringify(headers)}`);
      // `Cache-Control: max-age=0` sends the same request through the route without a refresh.
      const routed = await ctx.app.request(path, {
        headers: { ...auth, ...headers, "cache-control": "max-age=0" },
      });
      assert.deepEqual(await snapshot(fast), await snapshot(routed), `${path} ${headers.accept}`);
    }
    const web = await ctx.app.request(`/dids/${h.did}`, { headers: auth });
    assert.match(web.headers.get("cache-control")!, /^private, max-age=\d+$/);
    assert.equal(JSON.parse(await web.text()).didResolutionMetadata.servedFromCache, true);
    assert.equal(h.count("/.well-known/did.json"), 1);

    // The request id: a sane one is echoed, else a new UUID; as on every route.
    const given = lane(get(`/dids/${KEY_DID}`, { ...auth, "x-request-id": "req-42" }))!;
    assert.equal(given.headers.get("x-request-id"), "req-42");
    const fresh = lane(get(`/dids/${KEY_DID}`, { ...auth, "x-request-id": "bad id!" }))!;
    assert.match(fresh.headers.get("x-request-id")!, UUID);
    await given.body?.cancel();
    await fresh.body?.cancel();
    // Without one, the lane makes an id only when it writes the request's log line (debug for a
    // 200): an id that names no log line finds nothing. The router always makes one.
    const lines: string[] = [];
    const orig = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      const quiet = lane(get(`/dids/${KEY_DID}`, auth))!;
      assert.equal(quiet.headers.get("x-request-id"), null);
      await quiet.body?.cancel();
      assert.equal(lines.length, 0);
      setLogLevel("debug");
      const logged = lane(get(`/dids/${KEY_DID}`, auth))!;
      const id = logged.headers.get("x-request-id")!;
      assert.match(id, UUID);
      await logged.body?.cancel();
      const line = JSON.parse(lines.at(-1)!);
      assert.equal(line.requestId, id);
      assert.equal(line.path, `/dids/${KEY_DID}`);
      assert.equal(line.status, 200);
      assert.equal(line.ms, 0);
    } finally {
      console.log = orig;
      setLogLevel("error");
    }
    const routed = await ctx.app.request(`/dids/${KEY_DID}`, {
      headers: { ...auth, "cache-control": "max-age=0" },
    });
    assert.match(routed.headers.get("x-request-id")!, UUID);
    await routed.body?.cancel();
  } finally {
    await ctx.close();
    await h.close();
  }
});

Deno.test("fast lane: a plain DID it has not seen is resolved and answered as the route would", async () => {
  const clock = Date.parse("2026-11-23T12:00:00Z");
  const h = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  // Two services on one clock and IdP: the lane answers in one, the route in the other, both cold.
  const a = await createTestContext({ now: () => clock });
  const b = await createTestContext({ now: () => clock, idp: a.idp });
  try {
    const token = await signToken(a.idp, { expiresIn: "1h" });
    const auth = { authorization: `Bearer ${token}` };
    for (const ctx of [a, b]) {
      await (await ctx.app.request("/me", { headers: auth })).body?.cancel();
    }
    const lane = rawLaneOf(a);
    const dids = [
      "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG",
      "did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169",
      "did:key:z6MkBROKEN",
      "did:nope:123",
      "did:peer:0z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
      encodeURIComponent("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"),
    ];
    for (const did of dids) {
      const fast = lane(get(`/dids/${did}`, auth));
      assert.ok(fast instanceof Promise, `the lane resolves ${did}`);
      const routed = await b.app.request(`/dids/${did}`, {
        headers: { ...auth, "cache-control": "max-age=0" },
      });
      assert.deepEqual(await snapshot(await fast), await snapshot(routed), did);
    }
    // A DID with percent-encoding in it (did:web with a port) is left to the route.
    assert.equal(lane(get(`/dids/${h.did}`, auth)), undefined);
  } finally {
    await a.close();
    await b.close();
    await h.close();
  }
});

Deno.test("fast lane: declines what it cannot answer as the route would", async () => {
  let clock = Date.now(); // the token's exp is set from the real clock
  const ctx = await createTestContext({ now: () => clock });
  try {
    const lane = laneOf(ctx);
    const token = await signToken(ctx.idp, { expiresIn: "10m" });
    const auth = { authorization: `Bearer ${token}` };
    const path = `/dids/${KEY_DID}`;
    const other = "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG";

    // Token not yet verified: declined, then the route verifies it.
    assert.equal(lane(get(path, auth)), undefined);
    assert.equal((await ctx.app.request(path, { headers: auth })).status, 200);
    const warm = lane(get(path, auth));
    assert.equal(warm?.status, 200);
    await warm?.body?.cancel();

    const declined: [string, Request][] = [
      ["a DID URL with a fragment", get(`/dids/${other}%23key-1`, auth)],
      ["no token", get(path)],
      ["another scheme", get(path, { authorization: `Basic ${token}` })],
      ["a token never verified", get(path, { authorization: "Bearer abc.def.ghi" })],
      ["a query", get(`${path}?noCache=true`, auth)],
      ["Cache-Control", get(path, { ...auth, "cache-control": "no-cache" })],
      ["an unacceptable Accept", get(path, { ...auth, accept: "text/html" })],
      ["another method", get(path, auth, "HEAD")],
      ["a deeper path", get(`${path}/x`, auth)],
      ["another route", get("/me", auth)],
      ["bad percent-encoding", get("/dids/did%3Akey%3A%E0%A4%A", auth)],
    ];
    for (const [why, req] of declined) assert.equal(lane(req), undefined, why);

    // The routes answer those themselves.
    assert.equal((await ctx.app.request(path)).status, 401);
    const notAcceptable = await ctx.app.request(path, {
      headers: { ...auth, accept: "text/html" },
    });
    assert.equal(notAcceptable.status, 406);
    await notAcceptable.body?.cancel();

    // Once the token has expired, its cached principal is not used: the route says 401.
    clock += 11 * 60_000;
    assert.equal(lane(get(path, auth)), undefined);
    const expired = await ctx.app.request(path, { headers: auth });
    assert.equal(expired.status, 401);
    assert.match(await expired.text(), /expired/);
  } finally {
    await ctx.close();
  }
});

Deno.test("fast lane: with DID_RESOLUTION_PUBLIC=true it answers without a token", async () => {
  const ctx = await createTestContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    const lane = laneOf(ctx);
    const path = `/dids/${KEY_DID}`;
    await (await ctx.app.request(path)).body?.cancel();
    const fast = lane(get(path))!;
    assert.equal(fast.status, 200);
    assert.equal(fast.headers.get("cache-control"), "public, max-age=86400, immutable");
    assert.equal(JSON.parse(await fast.text()).didDocument.id, KEY_DID);
  } finally {
    await ctx.close();
  }
});
