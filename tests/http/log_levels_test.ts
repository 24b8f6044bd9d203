/**
 * The level of each request's log line (src/http/README.md "Errors"): error for our 5xx, warn when a peer
 * failed or refused (502, 504, or a 500 that reports a peer's failure, such as a DID host's), info
 * for 4xx and 501, debug otherwise. A DID host's failure through the app: tests/did/answer_test.ts.
 */
import assert from "node:assert/strict";
import { logRequest } from "../../src/http/mod.ts";
import { setLogLevel } from "../../src/base/log.ts";

Deno.test("request log lines: 500/503 error, 502/504 and a peer's 500 warn, 501 and 4xx info, 2xx debug", () => {
  const lines: { level: string; status: number }[] = [];
  const orig = { log: console.log, error: console.error };
  const capture = (line: string) => lines.push(JSON.parse(line));
  console.log = console.error = capture;
  setLogLevel("debug");
  try {
    for (const status of [200, 404, 500, 501, 502, 503, 504]) {
      logRequest("req-1", "GET", "/x", status, performance.now());
    }
    logRequest("req-2", "GET", "/dids/did:web:down.example", 500, performance.now(), true);
  } finally {
    console.log = orig.log;
    console.error = orig.error;
    setLogLevel("error");
  }
  assert.deepEqual(
    lines.map((l) => [l.status, l.level]),
    [
      [200, "debug"],
      [404, "info"],
      [500, "error"],
      [501, "info"],
      [502, "warn"],
      [503, "error"],
      [504, "warn"],
      [500, "warn"],
    ],
  );
});
