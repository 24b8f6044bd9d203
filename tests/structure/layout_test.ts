/**
 * The layout of `src/` (ARCHITECTURE.md "Shape"): few loose files, the protocol and store folders
 * each with its public `mod.ts`, and the shared helpers written once (a plain-object test is
 * `base/json.ts`'s `isObject`, nowhere else). That protocol folders never import one another is
 * an import rule (`import_rules.ts`, rule 7).
 */
import assert from "node:assert/strict";
import { PROTOCOLS } from "./import_rules.ts";

const SRC = new URL("../../src/", import.meta.url);

/** A plain-object test written out: `typeof x === "object"` and `!Array.isArray(x)` of one `x`. */
const PLAIN_OBJECT_TEST = /typeof ([\w.$\[\]"?]+) === "object"[^;\n]*!Array\.isArray\(\1\)/;

/** The files of `dir` (paths relative to it) whose text writes a plain-object test out. */
export async function plainObjectTests(dir: URL, base = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = base + e.name;
    if (e.isDirectory) found.push(...await plainObjectTests(new URL(`${e.name}/`, dir), `${rel}/`));
    else if (e.name.endsWith(".ts") && rel !== "base/json.ts") {
      const text = await Deno.readTextFile(new URL(e.name, dir));
      if (PLAIN_OBJECT_TEST.test(text)) found.push(rel);
    }
  }
  return found.sort();
}

/** The files directly in `dir`, and its folders. */
async function entries(dir: URL): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = [];
  const folders: string[] = [];
  for await (const e of Deno.readDir(dir)) (e.isDirectory ? folders : files).push(e.name);
  return { files: files.sort(), folders: folders.sort() };
}

Deno.test("src/ has at most 4 loose files: the three to open first and its README", async () => {
  const { files } = await entries(SRC);
  assert.ok(files.length <= 4, `${files.length} loose files: ${files.join(", ")}`);
  assert.deepEqual(files, ["README.md", "app.ts", "compose.ts", "main.ts"]);
});

Deno.test("the five protocol and store folders exist, each with its mod.ts", async () => {
  const { folders } = await entries(SRC);
  for (const folder of ["credentials", ...PROTOCOLS]) {
    assert.ok(folders.includes(folder), `src/${folder}/ is missing`);
    const mod = await Deno.stat(new URL(`${folder}/mod.ts`, SRC)).catch(() => undefined);
    assert.ok(mod?.isFile, `src/${folder}/mod.ts is missing`);
  }
});

Deno.test("isObject is defined once (base/json.ts): no other file of src/ writes a plain-object test", async () => {
  assert.deepEqual(await plainObjectTests(SRC), []);
});

Deno.test("the check finds a plain-object test written out, in any of its spellings", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/feature`);
    await Deno.mkdir(`${dir}/base`);
    const write = (path: string, text: string) => Deno.writeTextFile(`${dir}/${path}`, text);
    await write(
      "feature/a.ts",
      'const isObj = (v: unknown) => !!v && typeof v === "object" && !Array.isArray(v);\n',
    );
    await write(
      "b.ts",
      'if (typeof x.y === "object" && x.y !== null && !Array.isArray(x.y)) f();\n',
    );
    await write("c.ts", 'if (typeof a === "object" && !Array.isArray(b)) f();\n');
    await write("base/json.ts", 'typeof v === "object" && v !== null && !Array.isArray(v);\n');
    assert.deepEqual(await plainObjectTests(new URL(`file://${dir}/`)), ["b.ts", "feature/a.ts"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
