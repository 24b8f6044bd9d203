/**
 * `answerDid` (src/did/http/answer.ts), the one pipeline of the DID routes, through the app's door:
 * warm answers (prepared and cloned) are the cold ones byte for byte, the request id and log line,
 * tokens seen or not, HEAD, the bare document as a view into the result's bytes, and the router
 * answering through the same pipeline.
 */
import assert from "node:assert/strict";
import { type DidMethod, didRoutes } from "../../src/did/mod.ts";
import { setLogLevel } from "../../src/base/log.ts";
import { createTestContext, signToken } from "../support/context.ts";
import { didHost, json, webDoc } from "./did_host.ts";
import { laneRequest as get, snapshot } from "./lane_requests.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Captures the service's log lines (stdout and stderr) at `level` while `fn` runs. */
async function logLines(level: "debug" | "info", fn: () => Promise<void>) {
  const lines: Record<string, unknown>[] = [];
  const orig = { log: console.log, error: console.error };
  console.log = console.error = (line: string) => lines.push(JSON.parse(line));
  setLogLevel(level);
  try {
    await fn();
  } finally {
    console.log = orig.log;
    console.error = orig.error;
    setLogLevel("error");
  }
  return lines;
}

Deno.test("answerDid: a warm answer (cloned from a prepared one) is the cold answer byte for byte", async () => {
  let clock = Date.parse("2026-11-23T12:00:00Z");
  const h = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  const ctx = await createTestContext({ now: () => clock });
  try {
    const token = await signToken(ctx.idp, { expiresIn: "1h" });
    const auth = { authorization: `Bearer ${token}` };
    const cases: [string, Record<string, string>][] = [
      [`/dids/${KEY_DID}`, {}],
      [`/dids/${KEY_DID}`, { accept: "application/did+json" }],
      [`/1.0/identifiers/${KEY_DID}`, { accept: "application/did-resolution" }],
      [`/dids/${encodeURIComponent(KEY_DID)}`, {}],
      [`/dids/${h.did}`, { accept: "application/did+ld+json" }],
    ];
    for (const [path, headers] of cases) {
      ctx.services.resolver.clearMemory();
      const cold = await snapshot(
        await ctx.app.request(path, { headers: { ...auth, ...headers } }),
      );
      for (let i = 0; i < 3; i++) {
        const warm = await snapshot(
          await ctx.app.request(path, { headers: { ...auth, ...headers } }),
        );
        if (path.includes("did:web")) {
          // From the second answer on it comes from the cache: `servedFromCache`, max-age counts down.
          assert.equal(
            warm.body,
            cold.body.replace('"servedFromCache":false', '"servedFromCache":true'),
          );
          assert.deepEqual(
            warm.headers.find(([k]) => k === "cache-control"),
            ["cache-control", `private, max-age=${300 - i * 7}`],
          );
          clock += 7_000;
        } else assert.deepEqual(warm, cold, `${path} ${JSON.stringify(headers)} #${i}`);
      }
    }
    assert.equal(h.count("/.well-known/did.json"), 1);
  } finally {
    await ctx.close();
    await h.close();
  }
});

Deno.test("answerDid: the request id is echoed, made when the line is logged, and the line names it", async () => {
  const ctx = await createTestContext();
  try {
    const token = await ctx.token();
    const auth = { authorization: `Bearer ${token}` };
    const path = `/dids/${KEY_DID}`;
    await (await ctx.app.request(path, { headers: auth })).body?.cancel();

    const given = await ctx.app.request(path, { headers: { ...auth, "x-request-id": "req-42" } });
    assert.equal(given.headers.get("x-request-id"), "req-42");
    const bad = await ctx.app.request(path, { headers: { ...auth, "x-request-id": "bad id!" } });
    assert.match(bad.headers.get("x-request-id")!, UUID);
    await given.body?.cancel();
    await bad.body?.cancel();

    // Without one, an id is made only when the request's line is written (debug for a 200): an
    // id that names no line finds nothing.
    const quiet = await logLines("info", async () => {
      const res = await ctx.app.request(path, { headers: auth });
      assert.equal(res.headers.get("x-request-id"), null);
      await res.body?.cancel();
    });
    assert.deepEqual(quiet, []);
    let id = "";
    const logged = await logLines("debug", async () => {
      const res = await ctx.app.request(path, { headers: auth });
      id = res.headers.get("x-request-id")!;
      await res.body?.cancel();
    });
    assert.match(id, UUID);
    assert.deepEqual(logged, [{
      ...logged[0],
      level: "debug",
      msg: "request",
      requestId: id,
      method: "GET",
      path,
      status: 200,
      ms: 0, // an answer from memory: no clock read
    }]);
  } finally {
    await ctx.close();
  }
});

Deno.test("answerDid: a token not seen yet is verified on the way; an expired or missing one is 401 with the envelope", async () => {
  let clock = Date.now(); // the token's exp is set from the real clock
  const ctx = await createTestContext({ now: () => clock });
  try {
    const token = await signToken(ctx.idp, { expiresIn: "10m" });
    const auth = { authorization: `Bearer ${token}` };
    const path = `/dids/${KEY_DID}`;
    assert.equal(ctx.services.verifier.peek(token), undefined);
    const first = await ctx.app.request(path, { headers: auth });
    assert.equal(first.status, 200);
    assert.equal(JSON.parse(await first.text()).didDocument.id, KEY_DID);
    assert.ok(ctx.services.verifier.peek(token), "verified and remembered by the verifier");

    const missing = await ctx.app.request(path);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get("www-authenticate"), "Bearer");
    assert.match(missing.headers.get("x-request-id")!, UUID); // logged at info
    assert.deepEqual(await missing.json(), {
      statusCode: 401,
      error: "Unauthorized",
      message: "A bearer token is required (Authorization: Bearer <token>).",
    });
    // Lower-case scheme and extra spaces are still a bearer token (http/auth.ts's one rule).
    const spaced = await ctx.app.request(path, { headers: { authorization: `bearer  ${token}` } });
    assert.equal(spaced.status, 200);
    await spaced.body?.cancel();

    // Once the token has expired, its remembered caller is not used: 401 naming it.
    clock += 11 * 60_000;
    const expired = await ctx.app.request(path, { headers: auth });
    assert.equal(expired.status, 401);
    assert.equal(expired.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
    assert.match(await expired.text(), /expired/);
  } finally {
    await ctx.close();
  }
});

Deno.test("answerDid: with DID_RESOLUTION_PUBLIC=true no token is needed and answers are public", async () => {
  const ctx = await createTestContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    const res = await ctx.app.request(`/dids/${KEY_DID}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "public, max-age=86400, immutable");
    assert.equal(JSON.parse(await res.text()).didDocument.id, KEY_DID);
  } finally {
    await ctx.close();
  }
});

Deno.test("answerDid: HEAD answers the status and headers of GET without a body", async () => {
  const ctx = await createTestContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    for (const did of [KEY_DID, "did:key:zBROKEN"]) {
      const got = await ctx.app.request(`/dids/${did}`);
      const head = await ctx.app.request(`/dids/${did}`, { method: "HEAD" });
      assert.equal(head.status, got.status);
      assert.deepEqual([...head.headers], [...got.headers]);
      assert.equal(await head.text(), "");
      await got.body?.cancel();
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("answerDid: the bare document is exactly the result's document, non-ASCII included", async () => {
  const doc = { id: "did:uni:1", name: "ünïcode ✓", alsoKnownAs: ["https://ß.example"] };
  const uni: DidMethod = {
    name: "uni",
    deterministic: true,
    resolve: () =>
      Promise.resolve({
        didDocument: doc,
        didDocumentMetadata: { note: "ß" },
        didResolutionMetadata: { contentType: "application/did+ld+json" },
      }),
  };
  const ctx = await createTestContext({
    env: { DID_RESOLUTION_PUBLIC: "true" },
    build: { didResolver: { methods: [uni] } },
  });
  try {
    for (let i = 0; i < 2; i++) { // made, then prepared and cloned
      const bare = await ctx.app.request("/dids/did:uni:1", {
        headers: { accept: "application/did+json" },
      });
      assert.equal(bare.headers.get("content-type"), "application/did+json");
      assert.equal(await bare.text(), JSON.stringify(doc));
      const whole = await ctx.app.request("/dids/did:uni:1");
      assert.deepEqual(JSON.parse(await whole.text()), {
        didDocument: doc,
        didDocumentMetadata: { note: "ß" },
        didResolutionMetadata: { contentType: "application/did+ld+json", servedFromCache: false },
      });
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("answerDid: the router alone answers the DID routes through the same pipeline", async () => {
  const ctx = await createTestContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    const s = ctx.services;
    const { router } = didRoutes({
      resolver: s.resolver,
      verifier: s.verifier,
      isPublic: true,
      now: s.now,
    });
    for (const path of [`/dids/${KEY_DID}`, `/1.0/identifiers/${KEY_DID}%23z6Mk`, "/dids/x"]) {
      const viaRouter = await router.request(path);
      const viaApp = await ctx.app.request(path);
      assert.deepEqual(await snapshot(viaRouter), await snapshot(viaApp), path);
    }
    assert.equal((await ctx.app.request(get(`/dids/${KEY_DID}`, {}, "POST"))).status, 405);
  } finally {
    await ctx.close();
  }
});

Deno.test("answerDid: a DID host's failure (500 internalError) is logged at warn, a failure of ours at error", async () => {
  const down = didHost({ "/.well-known/did.json": () => new Response("oops", { status: 500 }) });
  const gone = didHost();
  await gone.close(); // nothing listens there any more: connection refused
  const broken: DidMethod = {
    name: "broken",
    deterministic: true,
    resolve: () => Promise.reject(new Error("a bug of ours")),
  };
  const ctx = await createTestContext({
    env: { DID_RESOLUTION_PUBLIC: "true" },
    build: { didResolver: { methods: [broken] } },
  });
  try {
    const cases: [string, string][] = [
      [`/dids/${down.did}`, "warn"],
      [`/1.0/identifiers/${gone.did}`, "warn"],
      [`/dids/${down.did}%23key-1`, "warn"], // a DID URL of it
      ["/dids/did:broken:1", "error"],
    ];
    for (const [path, level] of cases) {
      const lines = await logLines("info", async () => {
        const res = await ctx.app.request(path);
        assert.equal(res.status, 500, path);
        await res.body?.cancel();
      });
      const line = lines.find((l) => l.msg === "request")!;
      assert.equal(line.level, level, path);
      assert.equal(line.status, 500);
    }
  } finally {
    await ctx.close();
    await down.close();
  }
});
