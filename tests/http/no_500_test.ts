/**
 * "The service never answers 500 to something the client did wrong": every route of the OpenAPI
 * document gets malformed input (wrong JSON types, huge and odd strings, bad path segments, bad
 * content types) with a valid owner token, on the whole app with every feature set up. Each answer
 * must be a 4xx with the error envelope (or a success), never a 5xx.
 */
import assert from "node:assert/strict";
import { createTestContext } from "../support/context.ts";

const ORG = "org-a";

const bodies: unknown[] = [
  {},
  [],
  null,
  "text",
  42,
  { orgId: 42, credentialRecordId: [], invitationUrl: { a: 1 }, invitation: "x" },
  { orgId: ORG, credentialRecordId: "x".repeat(100_000) },
  { orgId: ORG, notificationWebhook: "javascript:alert(1)" },
  { walletName: "\u0000\u202e", agentEndpoint: "http://[::1", apiKey: "🔑".repeat(300) },
  { invitationUrl: "https://example.com/?oob=" + "A".repeat(20_000) },
  { invitation: { "@type": "https://didcomm.org/out-of-band/1.1/invitation", services: [null] } },
  { invitation: { "@type": "https://didcomm.org/connections/1.0/invitation", recipientKeys: 5 } },
  { apiKey: null, agentEndpoint: 1, autoAcceptCredentials: "sometimes" },
  { __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } },
];

const segments = ["x", "%E0%A4%A", "..%2F..%2Fetc", "a".repeat(5000), "did:web:%00"];

Deno.test("no route answers 5xx to malformed input", async () => {
  const ctx = await createTestContext();
  try {
    const owner = await ctx.token({ [ORG]: ["owner"], "org-b": ["member"] });
    const doc = JSON.parse(await (await ctx.call("GET", "/openapi.json")).text()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const failures: string[] = [];
    let calls = 0;
    const statuses: Record<number, number> = {};
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (template === "/didcomm") continue; // its own uniform-400 tests cover it
        for (const seg of segments) {
          const path = template.replace("{orgId}", ORG).replaceAll(/\{[^}]+\}/g, seg);
          const sends = method === "get" || method === "delete"
            ? [{ body: undefined, ct: undefined }]
            : [
              ...bodies.map((b) => ({ body: JSON.stringify(b), ct: "application/json" })),
              { body: "{not json", ct: "application/json" },
              { body: "a=b", ct: "application/x-www-form-urlencoded" },
            ];
          for (const s of sends) {
            calls++;
            const res = await ctx.app.request(path + "?limit=-1&cursor=%FF&state=zz&orgId=" + ORG, {
              method: method.toUpperCase(),
              headers: {
                authorization: `Bearer ${owner}`,
                ...(s.ct ? { "content-type": s.ct } : {}),
              },
              body: s.body,
            });
            const text = await res.text();
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            if (res.status >= 500 && !(res.status === 501 && path.startsWith("/dids/"))) {
              failures.push(
                `${method.toUpperCase()} ${path.slice(0, 80)} ${
                  s.body?.slice(0, 60)
                } → ${res.status} ${text.slice(0, 120)}`,
              );
            }
          }
        }
      }
    }
    assert.ok(calls > 1000, `exercised ${calls} requests`);
    // The requests reach the handlers: validation, not-found, conflict and success answers.
    for (const status of [200, 400, 404, 409, 415]) {
      assert.ok(statuses[status], `some ${status} among ${JSON.stringify(statuses)}`);
    }
    assert.deepEqual(failures, []);
  } finally {
    await ctx.close();
  }
});
