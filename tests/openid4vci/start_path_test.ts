/**
 * The `@openid4vc/*` libraries are on no start path of the service: in the module graph of
 * `src/main.ts` (`deno info --json`), every code import of one is dynamic (the OpenID4VCI
 * holder's `library.ts`, the OpenID4VP holder's `libs.ts`, on first use); other files import
 * their types only, which type stripping erases.
 */
import assert from "node:assert/strict";
import { denoInfo } from "../structure/import_rules.ts";

Deno.test("the @openid4vc libraries are imported dynamically only (no start path loads them)", async () => {
  const graph = await denoInfo(new URL("../../", import.meta.url), "src/main.ts");
  const codeImports: string[] = [];
  for (const m of graph.modules) {
    for (const d of m.dependencies ?? []) {
      if (!d.specifier?.startsWith("@openid4vc/") || !d.code) continue;
      const file = m.specifier.slice(m.specifier.indexOf("/src/") + 1);
      codeImports.push(`${file} ${d.specifier}${d.isDynamic ? " (dynamic)" : ""}`);
    }
  }
  assert.deepEqual(codeImports.filter((i) => !i.endsWith("(dynamic)")), [], "static imports");
  for (
    const pkg of ["@openid4vc/oauth2", "@openid4vc/openid4vci", "@openid4vc/utils"]
  ) {
    assert.ok(codeImports.includes(`src/openid4vci/library.ts ${pkg} (dynamic)`), pkg);
  }
});
