/**
 * The DID plug-in drivers (and the Ethereum client code they pull in) are loaded on first use,
 * never at start-up (issue 21: a process that never resolves did:ethr must not pay for ethers):
 * none of their packages is reachable through static imports from the service's entries.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
/** The service's start-up: the process entry and the app it loads. */
const ENTRIES = ["src/main.ts", "src/start_app.ts"];
/** Packages only plug-in drivers use. */
const DRIVER_PACKAGES = [
  "ethers",
  "ethr-did-resolver",
  "@ayanworks/polygon-did-resolver",
  "pkh-did-resolver",
];

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
}

/** The `npm:` specifiers reached from `roots` through static imports of local modules. */
export function staticNpm(modules: InfoModule[], roots: string[]): Set<string> {
  const bySpecifier = new Map(modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const npm = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      const to = d.code?.specifier;
      if (to === undefined || d.isDynamic === true) continue;
      if (to.startsWith("npm:")) npm.add(to);
      else stack.push(to);
    }
  }
  return npm;
}

const isDriverPackage = (spec: string) =>
  DRIVER_PACKAGES.some((p) => spec.startsWith(`npm:${p}@`) || spec.startsWith(`npm:/${p}@`));

Deno.test("no plug-in driver package (ethers, ethr-did-resolver, polygon, pkh) is imported statically at start-up", async () => {
  for (const entry of ENTRIES) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      roots: string[];
      modules: InfoModule[];
    };
    const reached = [...staticNpm(info.modules, info.roots)];
    assert.ok(reached.length > 0 || entry === "src/main.ts", `${entry} reaches no npm package?`);
    assert.deepEqual(reached.filter(isDriverPackage), [], entry);
    // The drivers are in the graph, as dynamic imports (so the check above can see them).
    if (entry === "src/start_app.ts") {
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
  assert.deepEqual([...staticNpm(modules, ["file:///a.ts"])], ["npm:ethers@6.16.0"]);
});
