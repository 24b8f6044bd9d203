/**
 * The documentation's shape: the README is a front page of at most 30 000 bytes that shows the two
 * commands, every feature chapter beside the code (`src/**\/README.md`) is reachable from it, and
 * no relative link of any of them points at nothing.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** The `README.md` files under `dir` (paths relative to the repository). */
async function readmes(dir: URL, base: string): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) {
      found.push(...await readmes(new URL(`${e.name}/`, dir), `${base}${e.name}/`));
    } else if (e.name === "README.md") found.push(`${base}${e.name}`);
  }
  return found.sort();
}

/** The relative link targets of a Markdown text (no scheme, no bare anchor), without anchors. */
export function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith("#"))
    .map((t) => t.split("#")[0]!);
}

Deno.test("README.md is a front page: at most 30 000 bytes, with the two commands", async () => {
  const bytes = await Deno.readFile(new URL("README.md", ROOT));
  assert.ok(bytes.length <= 30_000, `README.md is ${bytes.length} bytes`);
  const text = new TextDecoder().decode(bytes);
  assert.ok(text.includes("npx -y deno@2.9.6 task dev"));
  assert.ok(text.includes("npx -y deno@2.9.6 task test"));
});

Deno.test("every chapter beside the code is linked from README.md, and every relative link resolves", async () => {
  const front = await Deno.readTextFile(new URL("README.md", ROOT));
  const linked = new Set(relativeLinks(front));
  for (const chapter of await readmes(new URL("src/", ROOT), "src/")) {
    assert.ok(linked.has(chapter), `${chapter} is not linked from README.md`);
  }
  for (const file of ["README.md", ...await readmes(new URL("src/", ROOT), "src/")]) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const target of relativeLinks(text)) {
      const url = new URL(target, new URL(file, ROOT));
      const exists = await Deno.stat(url).then(() => true, () => false);
      assert.ok(exists, `${file} links to ${target}, which does not exist`);
    }
  }
});

Deno.test("the link check reads relative links only", () => {
  const md = "[a](src/x/README.md#part) [b](https://x.example) [c](#here) ![d](../y.png)";
  assert.deepEqual(relativeLinks(md), ["src/x/README.md", "../y.png"]);
});
