/**
 * JSON-LD contexts under `JSONLD_CONTEXT_ALLOW` are fetched by the composed service's own
 * context store, through the outbound client with its timeout (CONTRACT "Credentials from real
 * issuers: status and contexts"): a context host that holds its answer past the timeout (5 s)
 * makes accept-request 502 naming the context and the timeout; nothing is sent, the record stays
 * `request-received`. (The address policy on context hosts is in
 * `tests/outbound/strict_instance_test.ts`.)
 */
import assert from "node:assert/strict";
import { createDocumentLoader } from "../../src/credentials/mod.ts";
import { expectJson, serveLocal } from "../support/context.ts";
import {
  acceptRequest,
  createProofContext,
  definition,
  proofOf,
  requestMessage,
  sentOn,
} from "./helpers.ts";

Deno.test("accept-request: a context host slower than the context fetch timeout is 502 naming the timeout; nothing sent", async () => {
  const vocab = { "@context": { nick: "https://example.org/vocab#nick" } };
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  let asked = 0;
  // Answers, but only after 8 s (or when the test ends): later than the service waits.
  const slow = serveLocal(async () => {
    asked++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([held, new Promise((r) => timer = setTimeout(r, 8_000))]);
    clearTimeout(timer);
    return Response.json(vocab);
  });
  const url = `${slow.url}/ctx/vocab/v1`;
  const ctx = await createProofContext({ env: { JSONLD_CONTEXT_ALLOW: `${slow.url}/ctx/` } });
  try {
    const loader = createDocumentLoader({ contexts: new Map([[url, vocab]]) });
    await ctx.store({ name: "Alice", nick: "Ally" }, { contexts: [url], documentLoader: loader });
    const req = requestMessage(definition(["nick", "$.credentialSubject.nick"]));
    await ctx.receive(req);
    const rec = await proofOf(ctx, req["@id"]);
    const body = await expectJson(await acceptRequest(ctx, rec.id), 502);
    assert.match(String(body.message), new RegExp(url.replaceAll(".", "\\.")));
    assert.match(String(body.message), /within 5000 ms/);
    assert.ok(asked >= 1, "the context host was asked");
    assert.equal((await proofOf(ctx, req["@id"])).state, "request-received");
    assert.deepEqual(sentOn(await ctx.flush(), req["@id"], "presentation"), []);
  } finally {
    release();
    await ctx.close();
    await slow.close();
  }
});
