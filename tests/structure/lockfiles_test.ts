/**
 * What `deno task dev` installs: `deno task` installs every npm package of `deno.lock` before it
 * runs a task, so `deno.lock` must hold the service's packages and nothing else. The test-only
 * packages (`tests/support/test_deps.ts`) live in `tests/deno.lock`, beside the very same entries
 * of `deno.lock`, and `deno task test` runs with it.
 */
import assert from "node:assert/strict";
import { TEST_DEPS } from "../support/test_deps.ts";

interface Lock {
  specifiers: Record<string, string>;
  npm: Record<
    string,
    { integrity: string; dependencies?: string[]; optionalDependencies?: string[] }
  >;
}

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => JSON.parse(Deno.readTextFileSync(new URL(path, ROOT)));
const serviceLock: Lock = read("deno.lock");
const testLock: Lock = read("tests/deno.lock");
const config = read("deno.json") as { imports: Record<string, string> };

/** `npm:/hono@4.13.19/` (a prefix entry) → `npm:hono@4.13.19`. */
function normalize(specifier: string): string {
  return specifier.replace(/^npm:\//, "npm:").replace(/\/$/, "");
}

/** The lock's package key of a dependency entry: `name` (one version in the lock) or `name@v`. */
function keyOf(lock: Lock, dep: string): string {
  const keys = Object.keys(lock.npm);
  const exact = keys.find((k) => k === dep || k.startsWith(`${dep}_`));
  if (exact) return exact;
  const versions = keys.filter((k) => k.startsWith(`${dep}@`));
  assert.equal(versions.length, 1, `one version of ${dep} in the lock: ${versions}`);
  return versions[0]!;
}

Deno.test("deno.json and deno.lock name no test-only package", () => {
  for (const name of Object.keys(TEST_DEPS)) {
    assert.ok(!(name in config.imports), `deno.json imports ${name}`);
    const inLock = [...Object.keys(serviceLock.specifiers), ...Object.keys(serviceLock.npm)]
      .filter((k) => k.replace(/^npm:/, "").startsWith(`${name}@`));
    assert.deepEqual(
      inLock,
      [],
      `deno.lock holds ${name}, so \`deno task dev\` installs it: a plain \`deno test\` of a test ` +
        "that loads it wrote it there; restore deno.lock and run tests with `deno task test`",
    );
  }
});

Deno.test("deno.lock holds exactly the npm imports of deno.json and the packages they reach", () => {
  const imported = new Set(
    Object.values(config.imports).filter((s) => s.startsWith("npm:")).map(normalize),
  );
  assert.deepEqual(
    Object.keys(serviceLock.specifiers).filter((s) => !imported.has(s)),
    [],
    "deno.lock names packages that deno.json does not import (a stray `deno run npm:…`?)",
  );
  const reached = new Set<string>();
  const todo = Object.entries(serviceLock.specifiers).map(([spec, resolved]) => {
    const body = spec.replace(/^npm:/, "");
    return `${body.slice(0, body.indexOf("@", 1))}@${resolved}`;
  });
  for (let key = todo.pop(); key !== undefined; key = todo.pop()) {
    if (reached.has(key)) continue;
    reached.add(key);
    const entry = serviceLock.npm[key];
    assert.ok(entry, `deno.lock lacks ${key}`);
    // Optional dependencies are installed too (where the platform fits).
    const deps = [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []];
    for (const dep of deps) todo.push(keyOf(serviceLock, dep));
  }
  assert.deepEqual(
    Object.keys(serviceLock.npm).filter((k) => !reached.has(k)),
    [],
    "deno.lock holds packages nothing reaches (`deno task dev` would install them)",
  );
});

Deno.test("tests/deno.lock pins the test-only packages and every package of deno.lock, identically", () => {
  for (const [key, entry] of Object.entries(serviceLock.npm)) {
    assert.equal(
      testLock.npm[key]?.integrity,
      entry.integrity,
      `${key}: tests/deno.lock must hold deno.lock's entry (copy it over)`,
    );
  }
  for (const [spec, resolved] of Object.entries(serviceLock.specifiers)) {
    assert.equal(testLock.specifiers[spec], resolved, spec);
  }
  for (const specifier of Object.values(TEST_DEPS)) {
    assert.ok(testLock.specifiers[specifier], `tests/deno.lock pins ${specifier}`);
  }
});
