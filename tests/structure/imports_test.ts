/**
 * The import rules of `src/` hold for the real code, and the check finds each kind of break in a
 * graph that has it (so the real-code test can fail).
 */
import assert from "node:assert/strict";
import { checkImports, type ImportGraph, srcImportGraph } from "./import_rules.ts";

const ROOT = new URL("../../", import.meta.url);
const ENTRIES = ["src/main.ts", "src/tasks/rotate_secrets.ts", "src/dev/token.ts"];

Deno.test("src/ has no import cycle, no folder cycle, no deep cross-feature import, no KV in route files, light entries stay light", async () => {
  const { all, runtime } = await srcImportGraph(ROOT, ENTRIES);
  assert.ok(all.size > 50, `the graph has ${all.size} files`);
  assert.ok(all.has("compose.ts") && all.has("did/mod.ts") && all.has("did/lite.ts"));
  assert.deepEqual(checkImports(all, runtime).map((v) => `${v.rule}: ${v.message}`), []);
  // The first stage of the start (main.ts) loads the DID early lane through did/lite.ts.
  assert.ok(runtime.get("main.ts")!.includes("did/lite.ts"));
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

Deno.test("a nested mod.ts is no public file; a folder's lite.ts is, and loads no mod.ts nor npm package", () => {
  const graph = (): ImportGraph =>
    new Map([
      ["main.ts", ["config.ts", "did/lite.ts"]],
      ["config.ts", []],
      ["did/mod.ts", ["did/answer.ts", "did/methods/key.ts"]],
      ["did/lite.ts", ["did/answer.ts", "did/methods/key_ed25519.ts"]],
      ["did/answer.ts", ["did/cache.ts"]],
      ["did/cache.ts", []],
      ["did/methods/key.ts", ["crypto/mod.ts", "did/methods/key_ed25519.ts"]],
      ["did/methods/key_ed25519.ts", ["crypto/lite.ts"]],
      ["crypto/mod.ts", ["crypto/lite.ts", "crypto/secret_box.ts"]],
      ["crypto/lite.ts", []],
      ["crypto/secret_box.ts", []],
    ]);
  assert.deepEqual(checkImports(graph()), []);

  // The two imports the README forbids: a nested mod.ts from another folder.
  const nested = graph();
  nested.set("main.ts", ["config.ts", "did/lite/mod.ts"]);
  nested.set("did/lite/mod.ts", ["did/answer.ts"]);
  nested.set("did/methods/key_ed25519.ts", ["crypto/edwards/mod.ts"]);
  nested.set("crypto/edwards/mod.ts", []);
  assert.deepEqual(checkImports(nested).map((v) => `${v.rule}: ${v.message}`), [
    "deep import: main.ts imports did/lite/mod.ts; use did/mod.ts",
    "deep import: did/methods/key_ed25519.ts imports crypto/edwards/mod.ts; use crypto/mod.ts",
    // ...and the light entry now loads a mod.ts, the nested one.
    "heavy light entry: did/lite.ts → did/methods/key_ed25519.ts → crypto/edwards/mod.ts",
  ]);

  // A light entry that loads a folder's surface, however indirectly, is heavy.
  const heavy = graph();
  heavy.set("did/answer.ts", ["did/cache.ts", "crypto/mod.ts"]);
  const found = checkImports(heavy);
  assert.deepEqual(found.map((v) => v.rule), ["heavy light entry"]);
  assert.equal(found[0]!.message, "did/lite.ts → did/answer.ts → crypto/mod.ts");
  // An npm package reached at run time makes it heavy too (npm resolution at start).
  const npm = graph(); // the runtime graph: npm packages appear there as npm: nodes
  npm.set("did/cache.ts", ["npm:@scure/base"]);
  const viaNpm = checkImports(graph(), npm);
  assert.deepEqual(viaNpm.map((v) => v.message), [
    "did/lite.ts → did/answer.ts → did/cache.ts → npm:@scure/base",
  ]);
  // A type-only import loads nothing: given the runtime graph without it, the entry is light.
  const runtime = graph();
  assert.deepEqual(checkImports(heavy, runtime), []);
  // A lite.ts nested deeper than a top-level folder is no light entry (and no public file).
  const deep = graph();
  deep.set("main.ts", ["config.ts", "did/lite.ts", "crypto/x/lite.ts"]);
  deep.set("crypto/x/lite.ts", []);
  assert.deepEqual(checkImports(deep).map((v) => v.rule), ["deep import"]);
});

Deno.test("base/ stands on nothing, and is the one surface a light entry may load", () => {
  const graph = (): ImportGraph =>
    new Map([
      ["main.ts", ["did/lite.ts"]],
      ["did/lite.ts", ["did/answer.ts"]],
      ["did/answer.ts", ["base/mod.ts"]],
      ["base/mod.ts", ["base/log.ts"]],
      ["base/log.ts", []],
    ]);
  assert.deepEqual(checkImports(graph()), []);

  const leaning = graph();
  leaning.set("base/log.ts", ["kv/mod.ts"]);
  leaning.set("kv/mod.ts", []);
  assert.deepEqual(checkImports(leaning).map((v) => `${v.rule}: ${v.message}`), [
    "base imports: base/log.ts imports kv/mod.ts",
    // ...and through base/mod.ts the light entry now loads a folder's surface.
    "heavy light entry: did/lite.ts → did/answer.ts → base/mod.ts → base/log.ts → kv/mod.ts",
  ]);

  const npm = graph();
  npm.set("base/log.ts", ["npm:jose"]);
  assert.deepEqual(checkImports(graph(), npm).map((v) => v.rule), [
    "base imports",
    "heavy light entry",
  ]);
});

Deno.test("a protocol folder imports no other protocol folder; all may import credentials/ and didcomm/", () => {
  const graph = (): ImportGraph =>
    new Map([
      ["compose.ts", ["present_proof/mod.ts", "openid4vp/mod.ts", "issue_credential/mod.ts"]],
      ["present_proof/mod.ts", ["present_proof/prover.ts"]],
      ["present_proof/prover.ts", ["credentials/mod.ts", "didcomm/mod.ts"]],
      ["openid4vp/mod.ts", ["credentials/mod.ts"]],
      ["issue_credential/mod.ts", ["didcomm/mod.ts", "credentials/mod.ts"]],
      ["credentials/mod.ts", []],
      ["didcomm/mod.ts", []],
    ]);
  assert.deepEqual(checkImports(graph()), []);
  const crossing = graph();
  crossing.set("present_proof/prover.ts", ["credentials/mod.ts", "issue_credential/mod.ts"]);
  crossing.set("openid4vp/mod.ts", ["credentials/mod.ts", "openid4vci/mod.ts"]);
  crossing.set("openid4vci/mod.ts", []);
  assert.deepEqual(checkImports(crossing).map((v) => `${v.rule}: ${v.message}`), [
    "protocol import: present_proof/prover.ts imports issue_credential/mod.ts",
    "protocol import: openid4vp/mod.ts imports openid4vci/mod.ts",
  ]);
});
