import assert from "node:assert/strict";
import { base58, base64, base64urlnopad, hex } from "@scure/base";
import { setLogLevel } from "../../src/base/log.ts";
import { agentsContext, agentToken, configure } from "./helpers.ts";

const utf8 = new TextEncoder();

/** Every textual form a secret could be stored or printed in. */
function forms(secret: Uint8Array | string): string[] {
  const bytes = typeof secret === "string" ? utf8.encode(secret) : secret;
  const out = [
    hex.encode(bytes),
    base64.encode(bytes),
    base64urlnopad.encode(bytes),
    base58.encode(bytes),
  ];
  if (typeof secret === "string") out.push(secret);
  // Padding-free base64 too (the '=' may be cut off by a store).
  out.push(base64.encode(bytes).replace(/=+$/, ""));
  return out;
}

/** Flattens a KV value to text, rendering byte arrays in every encoding. */
function render(v: unknown, out: string[] = []): string[] {
  if (v instanceof Uint8Array) out.push(...forms(v));
  else if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => render(x, out));
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      render(x, out);
    }
  } else out.push(String(v));
  return out;
}

Deno.test("secrets: neither API key nor wallet private key is in any KV value, response body or log line", async () => {
  const lines: string[] = [];
  const origLog = console.log, origErr = console.error, origWarn = console.warn;
  console.log = (...a: unknown[]) => lines.push(a.map(String).join(" "));
  console.error = console.log;
  console.warn = console.log;
  setLogLevel("debug");
  const ctx = await agentsContext();
  const bodies: string[] = [];
  const keep = async (r: Response) => {
    bodies.push(await r.text() + JSON.stringify([...r.headers]));
    return r;
  };
  try {
    const { res, apiKey } = await configure(ctx);
    await keep(res);
    const token = await ctx.token();
    await keep(await ctx.call("GET", "/orgs/org-a/agents", { token }));
    // Also the failure paths: a second configure with another key, wrong keys near the real one.
    await keep((await configure(ctx, "org-a", { apiKey: apiKey + "-second" })).res);
    await keep(await agentToken(ctx, apiKey + "x"));
    await keep(await agentToken(ctx, apiKey.slice(1), { query: "?orgId=org-a" }));
    const tokenRes = await keep(await agentToken(ctx, apiKey));
    assert.equal(tokenRes.status, 200);
    const rotated = "rotated-" + crypto.randomUUID();
    await keep(await ctx.call("PATCH", "/orgs/org-a/agents", { token, body: { apiKey: rotated } }));
    await keep(
      await ctx.call("PATCH", "/orgs/org-a/agents", {
        token,
        body: { agentEndpoint: "https://relay.example.com/didcomm" },
      }),
    );
    await keep(await agentToken(ctx, rotated));
    await ctx.services.dispatcher.runOnce();

    const w = (await ctx.services.wallet.identity("org-a"))!;
    const key = (await ctx.services.wallet.findByVerkey(w.verkey))!;
    const seed = key.secretKey.slice(0, 32);
    const secrets: [string, string[]][] = [
      ["apiKey", forms(apiKey)],
      ["second apiKey", forms(apiKey + "-second")],
      ["rotated apiKey", forms(rotated)],
      ["wallet seed", forms(seed)],
      ["wallet secret key", forms(key.secretKey)],
    ];

    const kvText: string[] = [];
    let entries = 0;
    for await (const e of ctx.kv.list({ prefix: [] })) {
      entries++;
      kvText.push(render(e.key).join("\n"), render(e.value).join("\n"));
    }
    assert.ok(entries >= 6, `expected the agent's records in KV, found ${entries}`);
    const haystacks: [string, string][] = [
      ["KV", kvText.join("\n")],
      ["responses", bodies.join("\n")],
      ["logs", lines.join("\n")],
    ];
    assert.ok(lines.some((l) => l.includes("agent token issued")), "logs were captured");
    for (const [where, text] of haystacks) {
      for (const [what, encodings] of secrets) {
        for (const enc of encodings) {
          assert.ok(!text.includes(enc), `${what} (${enc.slice(0, 6)}…) found in ${where}`);
        }
      }
    }
    // The service's private signing key is sealed, too: no JWK "d" in clear.
    assert.ok(!/"d":/.test(kvText.join("\n")) && !kvText.some((t) => /\nd\n/.test(t)));
  } finally {
    await ctx.close();
    setLogLevel("error");
    console.log = origLog;
    console.error = origErr;
    console.warn = origWarn;
  }
});
