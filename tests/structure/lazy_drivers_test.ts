/**
 * The DID plug-in drivers (and the Ethereum client code they pull in) are loaded on first use,
 * never at start-up (issue 21: a process that never resolves did:ethr must not pay for ethers):
 * none of their packages is reachable through static imports from the service's entries.
 */
import assert from "node:assert/strict";
import { denoInfo, type InfoModule, staticReach } from "./import_rules.ts";

const ROOT = new URL("../../", import.meta.url);
/** The service's start-up: the process entry and the app it loads. */
const ENTRIES = ["src/main.ts", "src/boot/start_app.ts"];
/** Packages only plug-in drivers use. */
const DRIVER_PACKAGES = [
  "ethers",
  "ethr-did-resolver",
  "@ayanworks/polygon-did-resolver",
  "pkh-did-resolver",
];

/** The `npm:` specifiers reached from `roots` through static imports of local modules. */
const staticNpm = (modules: InfoModule[], roots: string[]) =>
  [...staticReach(modules, roots)].filter((s) => s.startsWith("npm:"));

const isDriverPackage = (spec: string) =>
  DRIVER_PACKAGES.some((p) => spec.startsWith(`npm:${p}@`) || spec.startsWith(`npm:/${p}@`));

Deno.test("no plug-in driver package (ethers, ethr-did-resolver, polygon, pkh) is imported statically at start-up", async () => {
  for (const entry of ENTRIES) {
    const info = await denoInfo(ROOT, entry);
    const reached = staticNpm(info.modules, info.roots);
    assert.ok(reached.length > 0 || entry === "src/main.ts", `${entry} reaches no npm package?`);
    assert.deepEqual(reached.filter(isDriverPackage), [], entry);
    // The drivers are in the graph, as dynamic imports (so the check above can see them).
    if (entry === "src/boot/start_app.ts") {
      const dynamic = info.modules.flatMap((m) =>
        (m.dependencies ?? []).filter((d) => d.isDynamic === true).map((d) => d.code?.specifier)
      );
      assert.ok(dynamic.some((s) => s !== undefined && isDriverPackage(s)), "drivers not found");
    }
  }
});

Deno.test("the walk finds a driver package imported statically", () => {
  const modules: InfoModule[] = [
    { specifier: "file:///a.ts", dependencies: [{ code: { specifier: "file:///b.ts" } }] },
    {
      specifier: "file:///b.ts",
      dependencies: [
        { code: { specifier: "npm:ethers@6.16.0" } },
        { code: { specifier: "npm:pkh-did-resolver@2.0.0" }, isDynamic: true },
      ],
    },
  ];
  assert.deepEqual(staticNpm(modules, ["file:///a.ts"]), ["npm:ethers@6.16.0"]);
});
