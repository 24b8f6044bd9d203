/**
 * House style: no source file over 400 lines (aim for about 300), the page's scripts included. A
 * file that grows past it has a seam to split along (as `outbox/dispatcher.ts` split into the
 * claim loop and `attempt.ts`, or the console's sections into modules of `web/page/`).
 */
import assert from "node:assert/strict";

const SRC = new URL("../../src/", import.meta.url);
const MAX_LINES = 400;

/** `[path, lines]` of the TypeScript and JavaScript files under `dir` longer than `max` lines. */
export async function longFiles(dir: URL, max: number, base = ""): Promise<[string, number][]> {
  const found: [string, number][] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = base + e.name;
    if (e.isDirectory) {
      found.push(...await longFiles(new URL(`${e.name}/`, dir), max, rel + "/"));
    } else if (/\.(ts|js)$/.test(e.name)) {
      const lines = (await Deno.readTextFile(new URL(e.name, dir))).split("\n").length - 1;
      if (lines > max) found.push([rel, lines]);
    }
  }
  return found.sort();
}

Deno.test("no TypeScript or JavaScript file of src/ is over 400 lines", async () => {
  const found = await longFiles(SRC, MAX_LINES);
  assert.deepEqual(found, []);
});

Deno.test("the check finds a file over the limit, in a folder too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/feature`);
    await Deno.writeTextFile(`${dir}/feature/long.ts`, "x;\n".repeat(401));
    await Deno.writeTextFile(`${dir}/page.js`, "x;\n".repeat(401));
    await Deno.writeTextFile(`${dir}/ok.ts`, "x;\n".repeat(400));
    await Deno.writeTextFile(`${dir}/notes.md`, "x\n".repeat(401));
    assert.deepEqual(await longFiles(new URL(`file://${dir}/`), MAX_LINES), [
      ["feature/long.ts", 401],
      ["page.js", 401],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
