/**
 * The access log (CONTRACT "Operations", README "Errors"): one JSON line per request at `info`
 * with `method`, `route` (the pattern: never a DID or an id), `status`, `ms`, `requestId` and
 * `orgId` when known; error for our 5xx, warn when a peer failed (502/504, a DID host's 500);
 * `LOG_REQUESTS=errors` keeps only 4xx/5xx. In-process through the app and the early lane, and
 * in a service process, whose lines go to stdout in batches.
 */
import assert from "node:assert/strict";
import { createEarlyLane } from "../../src/did/lite.ts";
import { logRequest } from "../../src/http/lite.ts";
import { type LogLine, logLinesOf } from "../support/log_lines.ts";
import { createIdp, createTestContext } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
type Line = LogLine;

Deno.test("access lines: info for 2xx, 3xx, 4xx and 501; error for our 5xx; warn for 502/504 and a peer's 500", async () => {
  const lines = await logLinesOf(() => {
    for (const status of [200, 304, 404, 500, 501, 502, 503, 504]) {
      logRequest("req-1", "GET", "/x", status, performance.now());
    }
    logRequest("req-2", "GET", "/dids/{did}", 500, performance.now(), true);
  });
  assert.deepEqual(lines.map((l) => [l.status, l.level]), [
    [200, "info"],
    [304, "info"],
    [404, "info"],
    [500, "error"],
    [501, "info"],
    [502, "warn"],
    [503, "error"],
    [504, "warn"],
    [500, "warn"],
  ]);
  // The text-built info line and the `log` line of a 5xx have the same fields, in the same order.
  assert.deepEqual(Object.keys(lines[0]!), Object.keys(lines[3]!));
  assert.deepEqual(Object.keys(lines[0]!), [
    "time",
    "level",
    "msg",
    "requestId",
    "method",
    "route",
    "status",
    "ms",
  ]);
});

Deno.test("LOG_REQUESTS=errors keeps only the lines of 4xx and 5xx", async () => {
  const lines = await logLinesOf(() => {
    for (const status of [200, 204, 302, 400, 429, 500]) {
      logRequest("req-1", "POST", "/didcomm", status, performance.now());
    }
  }, { logging: "errors" });
  assert.deepEqual(lines.map((l) => l.status), [400, 429, 500]);
});

Deno.test("through the app: the route is the pattern that matched, never the path; orgId when known", async () => {
  const ctx = await createTestContext();
  try {
    const owner = await ctx.token({ "org-a": ["owner"] });
    const id = crypto.randomUUID();
    const requests: [string, string, string | undefined, unknown?][] = [
      ["GET", `/orgs/org-a/connections/${id}`, owner],
      ["GET", "/orgs/org-b/connections", owner],
      ["GET", "/orgs/org-a/connections", undefined],
      ["POST", "/notification/register/webhook-endpoint", owner, {
        orgId: "org-a",
        notificationWebhook: "https://hooks.example/a",
      }],
      ["GET", `/dids/${KEY_DID}`, owner],
      ["GET", `/1.0/identifiers/${KEY_DID}`, owner],
      ["GET", "/1.0/methods", owner],
      ["GET", `/no/such/${id}`, owner],
      ["DELETE", "/health", owner],
    ];
    const lines = await logLinesOf(async () => {
      for (const [method, path, token, body] of requests) {
        await (await ctx.call(method, path, { token, body })).body?.cancel();
      }
    });
    const got = lines.filter((l) => l.msg === "request");
    assert.deepEqual(got.map((l) => [l.method, l.route, l.status, l.orgId]), [
      ["GET", "/orgs/{orgId}/connections/{id}", 404, "org-a"],
      ["GET", "/orgs/{orgId}/connections", 403, "org-b"],
      ["GET", "/orgs/{orgId}/connections", 401, undefined],
      ["POST", "/notification/register/webhook-endpoint", 201, "org-a"],
      ["GET", "/dids/{did}", 200, undefined],
      ["GET", "/1.0/identifiers/{identifier}", 200, undefined],
      ["GET", "/1.0/methods", 200, undefined],
      ["GET", null, 404, undefined],
      ["DELETE", null, 405, undefined],
    ]);
    for (const l of got) {
      assert.equal(typeof l.requestId, "string");
      assert.equal(typeof l.ms, "number");
    }
    const text = JSON.stringify(lines);
    assert.ok(!text.includes(id) && !text.includes(KEY_DID), "no id or DID in any line");
  } finally {
    await ctx.close();
  }
});

Deno.test("the early lane (before the app has loaded) writes the same line", async () => {
  const early = createEarlyLane({ isPublic: true });
  const lines = await logLinesOf(async () => {
    const res = early(new Request(`http://localhost/dids/${KEY_DID}`))!;
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  assert.match(lines[0]!.requestId as string, /^[0-9a-f-]{36}$/);
  assert.deepEqual(lines, [{
    ...lines[0],
    level: "info",
    msg: "request",
    method: "GET",
    route: "/dids/{did}",
    status: 200,
    ms: 0,
  }]);
});

Deno.test("a service process writes every request's line to stdout (in batches); LOG_REQUESTS=errors only 4xx/5xx", async () => {
  const idp = await createIdp();
  for (const logging of ["all", "errors"] as const) {
    const dir = await Deno.makeTempDir({ prefix: "access_log_" });
    const svc = await startService(
      serviceEnv(idp, dir, {
        LOG_LEVEL: "info",
        LOG_REQUESTS: logging,
        DID_RESOLUTION_PUBLIC: "true",
      }),
    );
    try {
      for (const path of [`/dids/${KEY_DID}`, "/dids/did:key:nope", "/health/ready"]) {
        await (await fetch(`${svc.base}${path}`, { headers: { "x-request-id": `r-${logging}` } }))
          .body?.cancel();
      }
      // The last request's line is there once its batch is written.
      const mine = () =>
        svc.output().split("\n").filter((s) => s.includes(`"requestId":"r-${logging}"`)).map((
          s,
        ) => JSON.parse(s) as Line);
      await waitFor("the 4xx line", () => mine().some((l) => l.status === 400));
      if (logging === "all") {
        await waitFor("every line", () => mine().length === 3);
        assert.deepEqual(mine().map((l) => [l.route, l.status]), [
          ["/dids/{did}", 200],
          ["/dids/{did}", 400],
          ["/health/ready", 200],
        ]);
      } else {
        // Lines are written in order: had the 200 before it been logged, it would be here.
        assert.deepEqual(mine().map((l) => [l.route, l.status]), [["/dids/{did}", 400]]);
      }
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  }
});
