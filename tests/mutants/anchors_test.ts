/**
 * The mutation list (`mutations.ts`) still fits the tree: every anchor occurs exactly once in its
 * file and every owning test file exists, so a moved line or file turns this suite red at once
 * (`deno task mutants` refuses to run then, naming each anchor). And the runner's two pieces of
 * text work: counting an anchor, replacing it once.
 */
import assert from "node:assert/strict";
import { anchorProblems, applyMutation, occurrences } from "./anchors.ts";
import { MUTATIONS } from "./mutations.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("every mutation applies to this tree: its anchor occurs exactly once, its owning tests exist", async () => {
  const problems = await anchorProblems(ROOT);
  assert.deepEqual(problems.map((p) => `${p.id}: ${p.message}`), []);
  assert.ok(MUTATIONS.length >= 30, `${MUTATIONS.length} mutations`);
  for (const m of MUTATIONS) {
    assert.ok(m.rule.trim().length > 10, `${m.id}: the rule in words`);
    assert.ok(m.tests.every((t) => t.startsWith("tests/") && t.endsWith("_test.ts")), m.id);
  }
});

Deno.test("a moved anchor is reported, naming the mutation and the count; a mutation replaces once", async () => {
  assert.equal(occurrences("a b a b a", "a"), 3);
  assert.equal(occurrences("abc", ""), 0);
  const [m] = MUTATIONS;
  const moved = { ...m!, anchor: `${m!.anchor}\u0000 no longer there` };
  const twice = { ...m!, id: "twice", anchor: "\n" };
  const problems = await anchorProblems(ROOT, [moved, twice]);
  assert.equal(problems.length, 2);
  assert.match(problems[0]!.message, /occurs 0 times/);
  assert.equal(problems[0]!.kind, "anchor");
  assert.match(problems[1]!.message, /occurs \d+ times/);
  assert.equal(
    applyMutation("x-anchor-anchor", { ...m!, anchor: "anchor", replacement: "R" }),
    "x-R-anchor",
  );
});
