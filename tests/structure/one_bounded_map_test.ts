/**
 * One bounded map (ARCHITECTURE "Examples to follow": std `cache/lru_cache.ts`): every in-memory
 * cache of `src/` is the `Lru` of `src/base/lru.ts`. A Map that a file bounds by hand, by evicting its
 * first key (a FIFO) or clearing itself when full, is a second cache implementation.
 */
import assert from "node:assert/strict";

const SRC = new URL("../../src/", import.meta.url);

/** The hand-bounding idioms: evict the oldest key, or clear the map once it is full. */
const HAND_BOUNDED = [
  /\.keys\(\)\.next\(\)/,
  /\.size\s*>=?\s*[\w.#]+\)\s*[\w.#]+\.clear\(\)/,
  /\.size\s*<\s*[\w.#]+\)\s*[\w.#]+\.set\(/,
];

/** The files of `dir` whose text matches a hand-bounding idiom (paths relative to `src/`). */
export async function handBoundedMaps(dir: URL, base = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = base + e.name;
    if (e.isDirectory) found.push(...await handBoundedMaps(new URL(`${e.name}/`, dir), rel + "/"));
    else if (e.name.endsWith(".ts") && rel !== "base/lru.ts") {
      const text = await Deno.readTextFile(new URL(e.name, dir));
      if (HAND_BOUNDED.some((re) => re.test(text))) found.push(rel);
    }
  }
  return found.sort();
}

Deno.test("no file of src/ but base/lru.ts bounds a Map by hand", async () => {
  const found = await handBoundedMaps(SRC);
  assert.deepEqual(found, []);
});

Deno.test("the check finds a FIFO map, a clear-all map and a stop-adding map", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/feature`);
    await Deno.mkdir(`${dir}/base`);
    await Deno.writeTextFile(
      `${dir}/feature/fifo.ts`,
      "if (m.size >= MAX) m.delete(m.keys().next().value!);\n",
    );
    await Deno.writeTextFile(`${dir}/clear.ts`, "if (cache.size >= 1024) cache.clear();\n");
    await Deno.writeTextFile(`${dir}/stop.ts`, "if (byMethod.size < 64) byMethod.set(k, v);\n");
    await Deno.writeTextFile(`${dir}/registry.ts`, "const m = new Map(); m.set(k, v);\n");
    await Deno.writeTextFile(
      `${dir}/base/lru.ts`,
      "this.delete(this.#map.keys().next().value!);\n",
    );
    const found = await handBoundedMaps(new URL(`file://${dir}/`));
    assert.deepEqual(found, ["clear.ts", "feature/fifo.ts", "stop.ts"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
