/**
 * `/openapi.json` is a valid OpenAPI 3.1 document for schema-driven clients: a real validator
 * (`@apidevtools/swagger-parser`) accepts it; every operation has a unique `operationId`; it
 * names its `servers`; and every `pattern` is a plain ECMA-262 pattern (no `/…/i` flags) that
 * matches the example given beside it.
 */
import assert from "node:assert/strict";
import { importTestDep } from "../support/test_deps.ts";
import { createTestContext, expectJson } from "../support/context.ts";

type Json = Record<string, unknown>;

/** Every schema object with a `pattern`, with where it is. */
function patterns(node: unknown, at = "#", out: { at: string; schema: Json }[] = []) {
  if (Array.isArray(node)) node.forEach((v, i) => patterns(v, `${at}/${i}`, out));
  else if (node && typeof node === "object") {
    const o = node as Json;
    if (typeof o.pattern === "string") out.push({ at, schema: o });
    for (const [k, v] of Object.entries(o)) patterns(v, `${at}/${k}`, out);
  }
  return out;
}

Deno.test("/openapi.json passes a real OpenAPI validator, with servers and an operationId on every operation", async () => {
  const ctx = await createTestContext({ env: { PUBLIC_URL: "https://ssi.example.com" } });
  try {
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200);
    const { default: SwaggerParser } = await importTestDep("@apidevtools/swagger-parser") as {
      default: { validate(api: unknown): Promise<unknown> };
    };
    await SwaggerParser.validate(structuredClone(doc));
    assert.deepEqual(doc.servers, [{
      url: "https://ssi.example.com",
      description: "This service (PUBLIC_URL)",
    }]);
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(item)) {
        assert.equal(typeof op.operationId, "string", `${method.toUpperCase()} ${path}`);
        ids.push(op.operationId as string);
      }
    }
    assert.ok(ids.length >= 25, `${ids.length} operations`);
    assert.equal(new Set(ids).size, ids.length, "operationIds are unique");
    assert.ok(ids.includes("acceptCredential") && ids.includes("configureAgent"));
  } finally {
    await ctx.close();
  }
});

Deno.test("every pattern in /openapi.json is a flag-free pattern that matches its example", async () => {
  const ctx = await createTestContext();
  try {
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200);
    const found = patterns(doc);
    assert.ok(found.length >= 10, `${found.length} patterns`);
    for (const { at, schema } of found) {
      const pattern = schema.pattern as string;
      assert.doesNotMatch(
        pattern,
        /\/[dgimsuvy]+$/,
        `${at}: a JavaScript regex flag in ${pattern}`,
      );
      const re = new RegExp(pattern, "u");
      const examples = [
        ...(schema.example !== undefined ? [schema.example] : []),
        ...(Array.isArray(schema.examples) ? schema.examples : []),
      ];
      assert.ok(examples.length > 0, `${at}: the pattern ${pattern} has no example`);
      for (const ex of examples) assert.match(String(ex), re, `${at}: ${ex} ∉ ${pattern}`);
    }
  } finally {
    await ctx.close();
  }
});
