/**
 * The KV keyspace is described once, in `src/kv/README.md`, and that table names exactly the keys
 * `src/kv/keys.ts` builds: each builder (its `…Prefix` list helpers aside) called with its own
 * parameter names gives the key as the table writes it, `["credential", orgId, id]`.
 */
import assert from "node:assert/strict";
import { keys } from "../../src/kv/keys.ts";

const README = new URL("../../src/kv/README.md", import.meta.url);

/** A builder's key as the table writes it: constants quoted, parameters by name. */
export function keyPattern(build: (...args: never[]) => readonly unknown[]): string {
  const params = /^\(([^)]*)\)/.exec(build.toString())?.[1] ?? "";
  const names = params.split(",").map((p) => p.trim().split(/[:=\s]/)[0]!).filter(Boolean);
  const marks = names.map((n) => `\u0000${n}`);
  const parts = (build as (...a: string[]) => readonly unknown[])(...marks).map((v) =>
    typeof v === "string" && v.startsWith("\u0000") ? v.slice(1) : JSON.stringify(v)
  );
  return `[${parts.join(", ")}]`;
}

/** The keys of a Markdown table's first column (`` `[…]` ``). */
export function tableKeys(markdown: string): string[] {
  return [...markdown.matchAll(/^\| `(\[[^`]+\])` +\|/gm)].map((m) => m[1]!);
}

Deno.test("src/kv/README.md's table names exactly the keys keys.ts builds", async () => {
  const built = Object.entries(keys)
    .filter(([name]) => !name.endsWith("Prefix"))
    .map(([, build]) => keyPattern(build as (...args: never[]) => readonly unknown[]))
    .sort();
  const table = tableKeys(await Deno.readTextFile(README)).sort();
  assert.ok(built.length > 40, `${built.length} keys`);
  assert.deepEqual(table, built);
});

Deno.test("the check reads builders and tables as written, and finds a missing or extra row", () => {
  const credential = (orgId: string, id: string) => ["credential", orgId, id] as const;
  const tick = (tickMs: number) => ["status_recheck_tick", tickMs] as const;
  const probe = () => ["health", "probe"] as const;
  assert.equal(keyPattern(credential), '["credential", orgId, id]');
  assert.equal(keyPattern(tick as never), '["status_recheck_tick", tickMs]');
  assert.equal(keyPattern(probe), '["health", "probe"]');
  const md = "| key | value |\n| --- | --- |\n" +
    '| `["credential", orgId, id]` | a record |\n| `["gone", id]`   | stale |\n';
  assert.deepEqual(tableKeys(md), ['["credential", orgId, id]', '["gone", id]']);
  assert.notDeepEqual(tableKeys(md).sort(), [keyPattern(credential)]);
});
