/**
 * House style: no source file over 400 lines (aim for about 300). A file that grows past it has
 * a seam to split along (as `outbox/dispatcher.ts` split into the claim loop and `attempt.ts`).
 */
import assert from "node:assert/strict";

const SRC = new URL("../../src/", import.meta.url);
const MAX_LINES = 400;

/**
 * Files the DID wing's rewrite (issue 25, `did-core`) splits; nothing else may pass the limit.
 */
/** `[path, lines]` of the TypeScript files under `dir` longer than `max` lines. */
export async function longFiles(dir: URL, max: number, base = ""): Promise<[string, number][]> {
  const found: [string, number][] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = base + e.name;
    if (e.isDirectory) {
      found.push(...await longFiles(new URL(`${e.name}/`, dir), max, rel + "/"));
    } else if (e.name.endsWith(".ts")) {
      const lines = (await Deno.readTextFile(new URL(e.name, dir))).split("\n").length - 1;
      if (lines > max) found.push([rel, lines]);
    }
  }
  return found.sort();
}

Deno.test("no TypeScript file of src/ is over 400 lines", async () => {
  const found = await longFiles(SRC, MAX_LINES);
  assert.deepEqual(found, []);
});

Deno.test("the check finds a file over the limit, in a folder too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/feature`);
    await Deno.writeTextFile(`${dir}/feature/long.ts`, "x;\n".repeat(401));
    await Deno.writeTextFile(`${dir}/ok.ts`, "x;\n".repeat(400));
    assert.deepEqual(await longFiles(new URL(`file://${dir}/`), MAX_LINES), [
      ["feature/long.ts", 401],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
