import assert from "node:assert/strict";
import {
  blockedRange,
  checkOutboundUrl,
  createSafeFetch,
  SafeFetchError,
} from "../../src/outbound/mod.ts";
import { serveLocal } from "../support/context.ts";

const strict = { allowPrivate: false, requireHttps: false };

async function refused(url: string, kind: string, policy = strict) {
  const f = createSafeFetch(policy);
  await assert.rejects(f(url, { timeoutMs: 2000 }), (err: unknown) => {
    assert.ok(err instanceof SafeFetchError, String(err));
    assert.equal(err.kind, kind, `${url}: ${err.message}`);
    return true;
  });
}

Deno.test("the safe client refuses loopback, private, link-local, metadata and mapped addresses", async () => {
  for (
    const url of [
      "http://127.0.0.1/",
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://0x7f000001/",
      "http://2130706433/",
      "http://0.0.0.0/",
      "http://100.64.0.1/",
      "http://192.168.1.1/",
      "http://172.16.5.4/",
      "http://[fd00::1]/",
      "http://[fe80::1]/",
      "http://224.0.0.1/",
    ]
  ) {
    await refused(url, "blocked_address");
  }
});

Deno.test("a host name that resolves to a private address is refused; the message names it", async () => {
  const err = await checkOutboundUrl("http://localhost:9/", strict).catch((e) => e);
  assert.ok(err instanceof SafeFetchError);
  assert.equal(err.kind, "blocked_address");
  assert.match(err.message, /localhost/);
  // An injected resolver shows the same rule for any name.
  const viaDns = await checkOutboundUrl(
    "http://intranet.example/",
    strict,
    () => Promise.resolve(["93.184.216.34", "10.1.2.3"]),
  ).catch((e) => e);
  assert.equal(viaDns.kind, "blocked_address");
  assert.match(viaDns.message, /10\.1\.2\.3/);
});

Deno.test("public addresses pass the address check; https and user-info rules apply", async () => {
  assert.equal(blockedRange("93.184.216.34"), undefined);
  assert.equal(blockedRange("2606:4700::1111"), undefined);
  assert.ok(blockedRange("::ffff:10.0.0.1"));
  await assert.rejects(
    checkOutboundUrl("http://93.184.216.34/", { allowPrivate: false, requireHttps: true }),
    (e: unknown) => e instanceof SafeFetchError && e.kind === "https_required",
  );
  await assert.rejects(
    checkOutboundUrl("https://user:pw@93.184.216.34/", strict),
    (e: unknown) => e instanceof SafeFetchError && e.kind === "invalid_url",
  );
  await assert.rejects(
    checkOutboundUrl("file:///etc/passwd", strict),
    (e: unknown) => e instanceof SafeFetchError && e.kind === "invalid_url",
  );
});

Deno.test("redirects are failures, never followed; timeouts and oversize bodies are errors", async () => {
  let followed = 0;
  const srv = serveLocal(async (req) => {
    const p = new URL(req.url).pathname;
    if (p === "/redirect") {
      return new Response(null, { status: 302, headers: { location: "/target" } });
    }
    if (p === "/target") {
      followed++;
      return new Response("target");
    }
    if (p === "/slow") {
      await new Promise((r) => setTimeout(r, 1500));
      return new Response("late");
    }
    if (p === "/big") return new Response("x".repeat(5000));
    if (p === "/stream") {
      return new Response(
        new ReadableStream({
          start(c) {
            for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode("y".repeat(1000)));
            c.close();
          },
        }),
      );
    }
    return Response.json({ ok: true });
  });
  const open = { allowPrivate: true, requireHttps: false };
  try {
    const f = createSafeFetch(open);
    const ok = await f(`${srv.url}/ok`);
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(ok.body)), { ok: true });
    await refused(`${srv.url}/redirect`, "redirect", open);
    assert.equal(followed, 0);
    await assert.rejects(
      f(`${srv.url}/slow`, { timeoutMs: 200 }),
      (e: unknown) => e instanceof SafeFetchError && e.kind === "timeout",
    );
    await assert.rejects(
      f(`${srv.url}/big`, { maxBytes: 1000 }),
      (e: unknown) => e instanceof SafeFetchError && e.kind === "too_large",
    );
    await assert.rejects(
      f(`${srv.url}/stream`, { maxBytes: 5000 }),
      (e: unknown) => e instanceof SafeFetchError && e.kind === "too_large",
    );
    // The same local server is refused when private addresses are not allowed.
    await refused(`${srv.url}/ok`, "blocked_address");
  } finally {
    await srv.close();
  }
});

Deno.test("DNS rebinding: the connection goes to the address that was vetted, not to a new answer", async () => {
  let hits = 0;
  const srv = serveLocal(() => {
    hits++;
    return new Response("reached");
  });
  try {
    // The vetted answer for "localhost" is a public address; the system resolver would answer
    // 127.0.0.1, where the server listens. The call must go to the vetted address (unreachable
    // here), never to the server.
    let lookups = 0;
    const f = createSafeFetch(strict, {
      resolveHost: () => {
        lookups++;
        return Promise.resolve(["1.2.3.4"]);
      },
    });
    await assert.rejects(
      f(`http://localhost:${srv.port}/`, { timeoutMs: 1000 }),
      (e: unknown) => e instanceof SafeFetchError && (e.kind === "timeout" || e.kind === "network"),
    );
    assert.equal(hits, 0);
    assert.equal(lookups, 1);
    // The answer is reused for a while (and vetted again): a second call asks DNS no more.
    await assert.rejects(f(`http://localhost:${srv.port}/`, { timeoutMs: 300 }));
    assert.equal(lookups, 1);
    assert.equal(hits, 0);
    // A name whose (only) answer is private is refused on the connection path too.
    const g = createSafeFetch(strict, { resolveHost: () => Promise.resolve(["127.0.0.1"]) });
    await assert.rejects(
      g(`http://public.example:${srv.port}/`),
      (e: unknown) =>
        e instanceof SafeFetchError && e.kind === "blocked_address" &&
        /public\.example/.test(e.message),
    );
    assert.equal(hits, 0);
  } finally {
    await srv.close();
  }
});

Deno.test("the safe client connects to the resolved address under the URL's host name", async () => {
  const seen: { host: string | null; method: string; body: string; type: string | null }[] = [];
  const srv = serveLocal(async (req) => {
    seen.push({
      host: req.headers.get("host"),
      method: req.method,
      body: await req.text(),
      type: req.headers.get("content-type"),
    });
    return new Response("{}", { status: 201, headers: { "x-answer": "yes" } });
  });
  try {
    // "pinned.invalid" has no DNS entry: only the injected answer can reach the server.
    const f = createSafeFetch({ allowPrivate: true, requireHttps: false }, {
      resolveHost: () => Promise.resolve(["127.0.0.1"]),
    });
    const res = await f(`http://pinned.invalid:${srv.port}/hook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"n":"é"}',
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("x-answer"), "yes");
    assert.deepEqual(seen, [{
      host: `pinned.invalid:${srv.port}`,
      method: "POST",
      body: '{"n":"é"}',
      type: "application/json",
    }]);
    // Without the injected answer the name does not resolve.
    await assert.rejects(
      createSafeFetch(strict)(`http://pinned.invalid:${srv.port}/`),
      (e: unknown) => e instanceof SafeFetchError && e.kind === "dns",
    );
  } finally {
    await srv.close();
  }
});
