/**
 * The import rules of `src/` hold for the real code, and the check finds each kind of break in a
 * graph that has it (so the real-code test can fail).
 */
import assert from "node:assert/strict";
import { checkImports, type ImportGraph, srcImportGraph } from "./import_rules.ts";

const ROOT = new URL("../../", import.meta.url);
const ENTRIES = ["src/main.ts", "src/rotate_secrets.ts", "src/dev_token.ts"];

Deno.test("src/ has no import cycle, no folder cycle, no deep cross-feature import, no KV in route files", async () => {
  const graph = await srcImportGraph(ROOT, ENTRIES);
  assert.ok(graph.size > 50, `the graph has ${graph.size} files`);
  assert.ok(graph.has("compose.ts") && graph.has("did/mod.ts"));
  assert.deepEqual(checkImports(graph).map((v) => `${v.rule}: ${v.message}`), []);
});

const base = (): ImportGraph =>
  new Map([
    ["main.ts", ["compose.ts", "config.ts"]],
    ["compose.ts", ["agents/mod.ts", "didcomm/mod.ts"]],
    ["config.ts", []],
    ["agents/mod.ts", ["agents/service.ts"]],
    ["agents/service.ts", ["kv/mod.ts"]],
    ["agents/routes.ts", ["agents/service.ts", "http/mod.ts"]],
    ["didcomm/mod.ts", ["didcomm/service.ts"]],
    ["didcomm/service.ts", ["agents/mod.ts", "kv/mod.ts"]],
    ["kv/mod.ts", ["kv/keys.ts"]],
    ["kv/keys.ts", []],
    ["http/mod.ts", []],
  ]);

Deno.test("the check finds a file cycle, a folder cycle, a deep import and KV in a route file", () => {
  assert.deepEqual(checkImports(base()), []);

  const fileCycle = base();
  fileCycle.set("kv/keys.ts", ["kv/mod.ts"]);
  assert.deepEqual(checkImports(fileCycle).map((v) => v.rule), ["file cycle"]);

  const folderCycle = base();
  folderCycle.set("agents/service.ts", ["kv/mod.ts", "didcomm/mod.ts"]);
  const rules = checkImports(folderCycle).map((v) => v.rule).sort();
  assert.deepEqual(rules, ["file cycle", "folder cycle"]);

  const deep = base();
  deep.set("didcomm/service.ts", ["agents/service.ts", "kv/mod.ts"]);
  const found = checkImports(deep);
  assert.deepEqual(found.map((v) => v.rule), ["deep import"]);
  assert.match(
    found[0]!.message,
    /didcomm\/service\.ts imports agents\/service\.ts; use agents\/mod\.ts/,
  );

  const kvRoute = base();
  kvRoute.set("agents/routes.ts", ["agents/service.ts", "kv/mod.ts"]);
  assert.deepEqual(checkImports(kvRoute).map((v) => v.rule), ["kv in route file"]);

  const self = base();
  self.set("config.ts", ["config.ts"]);
  assert.deepEqual(checkImports(self).map((v) => v.rule), ["file cycle"]);
});
