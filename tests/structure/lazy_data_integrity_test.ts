/**
 * The Data Integrity stack (issue 34: `DataIntegrityProof` with `eddsa-rdfc-2022` and
 * `ecdsa-rdfc-2019`, and the data-integrity and multikey contexts) loads on the first proof that
 * needs it, never at start-up: none of its packages is reachable through static imports from the
 * service's entries, and all of them are in the graph as dynamic imports.
 */
import assert from "node:assert/strict";
import { denoInfo, staticReach } from "./import_rules.ts";

const ROOT = new URL("../../", import.meta.url);
const ENTRIES = ["src/main.ts", "src/boot/start_app.ts"];
const DI_PACKAGES = [
  "@digitalbazaar/data-integrity",
  "@digitalbazaar/eddsa-rdfc-2022-cryptosuite",
  "@digitalbazaar/ecdsa-rdfc-2019-cryptosuite",
  "@digitalbazaar/data-integrity-context",
  "@digitalbazaar/multikey-context",
];

const isDiPackage = (spec: string) => DI_PACKAGES.some((p) => spec.startsWith(`npm:${p}@`));

Deno.test("no Data Integrity package (data-integrity, the two cryptosuites, their contexts) is imported statically at start-up", async () => {
  for (const entry of ENTRIES) {
    const info = await denoInfo(ROOT, entry);
    const reached = [...staticReach(info.modules, info.roots)].filter(isDiPackage);
    assert.deepEqual(reached, [], entry);
    if (entry === "src/boot/start_app.ts") {
      const dynamic = new Set(
        info.modules.flatMap((m) =>
          (m.dependencies ?? []).filter((d) => d.isDynamic === true).map((d) => d.code?.specifier)
        ).filter((s): s is string => s !== undefined && isDiPackage(s))
          .map((s) => s.slice(4, s.lastIndexOf("@"))),
      );
      assert.deepEqual([...dynamic].sort(), [...DI_PACKAGES].sort(), "loaded on first use");
    }
  }
});
