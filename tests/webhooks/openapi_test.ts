import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import { webhookContext } from "./helpers.ts";

Deno.test("the webhook routes are described in /openapi.json", async () => {
  const ctx = await webhookContext();
  try {
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200);
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    assert.ok(paths["/notification/register/webhook-endpoint"]?.post);
    assert.ok(paths["/notification/webhook-endpoint"]?.get);
    assert.ok(paths["/notification/webhook-endpoint"]?.delete);
    assert.ok(paths["/notification/webhook-endpoint/rotate-secret"]?.post);
    assert.ok(paths["/notification/webhook-endpoint/test"]?.post);
    assert.ok(paths["/notification/deliveries"]?.get);
    assert.ok(paths["/notification/deliveries/{id}/retry"]?.post);
  } finally {
    await ctx.close();
  }
});
