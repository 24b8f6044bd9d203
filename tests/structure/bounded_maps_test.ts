/**
 * One bounded map in the DID wing (issue 25): every cache under `src/did/` is the `Lru` of
 * `src/lru.ts`, none hand-rolls its eviction (dropping a Map's first key, or clearing it when
 * full). Tables, in-flight maps and the per-answer map of representations are not caches.
 */
import assert from "node:assert/strict";

const DID = new URL("../../src/did/", import.meta.url);
/** The idioms of a hand-rolled bounded map. */
const EVICTION = [/\.keys\(\)\.next\(\)/, /\.size\s*>=?\s*[A-Z_a-z0-9.]+\)\s*[\w.#]+\.clear\(\)/];

async function* files(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* files(new URL(`${e.name}/`, dir));
    else if (e.name.endsWith(".ts")) yield new URL(e.name, dir);
  }
}

Deno.test("src/did/ bounds its caches only with the one Lru", async () => {
  const found: string[] = [];
  let n = 0;
  for await (const file of files(DID)) {
    n++;
    const text = await Deno.readTextFile(file);
    for (const re of EVICTION) {
      if (re.test(text)) found.push(`${file.pathname.split("/src/")[1]}: ${re.source}`);
    }
  }
  assert.ok(n > 30, `${n} files read`);
  assert.deepEqual(found, []);
});

Deno.test("the check finds a hand-rolled eviction", () => {
  const fifo = "if (memo.size >= MAX) memo.delete(memo.keys().next().value!);";
  const clearAll = "if (this.#m.size >= LIMIT) this.#m.clear();";
  assert.ok(EVICTION.some((re) => re.test(fifo)));
  assert.ok(EVICTION.some((re) => re.test(clearAll)));
  assert.ok(!EVICTION.some((re) => re.test("const memo = new Lru<string>(512);")));
});
