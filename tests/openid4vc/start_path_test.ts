/**
 * The OpenID4VCI libraries are on no start path of the service: in the module graph of
 * `src/main.ts` (`deno info --json`), every code import of an `@openid4vc/*` package is dynamic
 * (`library.ts`, on first use); other files import their types only, which type stripping erases.
 */
import assert from "node:assert/strict";

interface Dep {
  specifier: string;
  code?: unknown;
  isDynamic?: boolean;
}

Deno.test("the @openid4vc libraries are imported dynamically only (no start path loads them)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "src/main.ts"],
    cwd: new URL("../../", import.meta.url),
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.success, "deno info failed");
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: Dep[] }[];
  };
  const codeImports: string[] = [];
  for (const m of graph.modules) {
    for (const d of m.dependencies ?? []) {
      if (!d.specifier.startsWith("@openid4vc/") || !d.code) continue;
      const file = m.specifier.slice(m.specifier.indexOf("/src/") + 1);
      codeImports.push(`${file} ${d.specifier}${d.isDynamic ? " (dynamic)" : ""}`);
    }
  }
  assert.deepEqual(codeImports.sort(), [
    "src/openid4vc/library.ts @openid4vc/oauth2 (dynamic)",
    "src/openid4vc/library.ts @openid4vc/openid4vci (dynamic)",
    "src/openid4vc/library.ts @openid4vc/utils (dynamic)",
  ]);
});
