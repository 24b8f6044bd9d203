/**
 * `deno task mutants`: the mutation suite. Each mutation of `mutations.ts` (one file, one anchor,
 * one replacement, the tests that own the rule) is applied to a copy of the tree, and only its
 * owning test files run against it; the mutation is killed when they fail. Every mutation must be
 * killed: a survivor is a rule no test holds.
 *
 * - Anchors first: an anchor that does not occur exactly once in its file (a line moved, a file
 *   renamed) stops the run before anything is mutated, each such anchor listed.
 * - The copy: one per worker, made once; every file a hard link of the real one, `node_modules`
 *   folders symlinked, lockfiles and `deno.json` copied (Deno may write a lockfile). A mutation
 *   replaces its one file (unlinked first, so the real file is never written) and puts the link
 *   back afterwards. Tests run with `--no-check` (a mutation need not type-check) and
 *   `--fail-fast`.
 * - A baseline first: the owning test files run once on the unmutated copy and must pass, so a
 *   kill means the mutation, not a broken copy or a red test.
 * - A mutation whose file no longer parses is INVALID (it would kill every test, proving nothing).
 *
 * Flags: `--only=id,id` (those mutations), `--jobs=N` (workers; default the CPU count, at most 4,
 * or MUTANTS_JOBS), `--no-baseline`, `--list`, `--all-failures` (no `--fail-fast`: every test a
 * mutation turns red is listed), `--verbose` (the first lines of each kill's error). The last line is
 * `mutants: N killed, M survived, K invalid (T s)`; the exit code is 0 only when every mutation is
 * killed.
 *
 * @module
 */
import { anchorProblems, applyMutation } from "./anchors.ts";
import { type Mutation, MUTATIONS } from "./mutations.ts";

const ROOT = new URL("../../", import.meta.url);
const ROOT_PATH = decodeURIComponent(ROOT.pathname);
/** Entries of the tree that are not copied. */
const SKIP = new Set([".git", ".data"]);
/** Files copied rather than linked: Deno may rewrite them. */
const COPY = new Set(["deno.lock", "deno.json"]);
/** One mutation's test run may take this long; beyond it the run is stopped and counted killed. */
const TIMEOUT_MS = 300_000;

type Outcome = "killed" | "survived" | "invalid" | "timeout";

interface Result {
  m: Mutation;
  outcome: Outcome;
  seconds: number;
  /** Tests that failed (name and file), as deno test lists them. */
  failures: string[];
  output: string;
}

function flag(name: string): string | undefined {
  const a = Deno.args.find((x) => x === `--${name}` || x.startsWith(`--${name}=`));
  return a === undefined ? undefined : a.includes("=") ? a.slice(a.indexOf("=") + 1) : "";
}

/** Makes `dst` a copy of `src`: hard links, symlinked node_modules, copied lockfiles. */
async function linkTree(src: string, dst: string): Promise<void> {
  await Deno.mkdir(dst, { recursive: true });
  for await (const e of Deno.readDir(src)) {
    if (SKIP.has(e.name)) continue;
    const from = `${src}/${e.name}`;
    const to = `${dst}/${e.name}`;
    if (e.name === "node_modules") await Deno.symlink(from, to);
    else if (e.isSymlink) await Deno.symlink(await Deno.readLink(from), to);
    else if (e.isDirectory) await linkTree(from, to);
    else if (COPY.has(e.name)) await Deno.copyFile(from, to);
    else await Deno.link(from, to);
  }
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
/** Signs that the mutated file does not load at all (its kill would prove nothing). */
const LOAD_ERRORS = [
  /The module's source code could not be parsed/,
  /Uncaught SyntaxError/,
  /error: Module not found/,
  /Expression expected/,
];

/** The failed tests of a `deno test` output (its FAILURES section). */
function failuresOf(output: string): string[] {
  const lines = output.replace(ANSI, "").split("\n");
  const at = lines.findIndex((l) => l.trim() === "FAILURES");
  if (at === -1) return [];
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (l.trim() === "") {
      if (out.length) break;
      continue;
    }
    out.push(l.trim().replace(/:\d+:\d+$/, ""));
  }
  return out;
}

/** Runs `files` with deno test in `cwd`; exit code, output, seconds. */
async function denoTest(cwd: string, files: readonly string[], failFast: boolean) {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--no-check",
      "--allow-all",
      "--lock=tests/deno.lock",
      ...(failFast ? ["--fail-fast"] : []),
      ...files,
    ],
    cwd,
    env: { NO_COLOR: "1", TEST_LOCKFILE: "tests/deno.lock", DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, TIMEOUT_MS);
  const { code, stdout, stderr } = await child.output();
  clearTimeout(timer);
  const dec = new TextDecoder();
  return {
    code,
    timedOut,
    output: dec.decode(stdout) + dec.decode(stderr),
    seconds: (performance.now() - started) / 1000,
  };
}

/** Applies `m` in the worker tree `dir`, runs its tests, restores the file. */
async function runMutation(dir: string, m: Mutation, original: string): Promise<Result> {
  const target = `${dir}/${m.path}`;
  await Deno.remove(target); // the hard link goes; the real file is untouched
  await Deno.writeTextFile(target, applyMutation(original, m));
  try {
    const r = await denoTest(dir, m.tests, flag("all-failures") === undefined);
    const failures = failuresOf(r.output);
    const outcome: Outcome = r.timedOut
      ? "timeout"
      : r.code === 0
      ? "survived"
      : LOAD_ERRORS.some((e) => e.test(r.output))
      ? "invalid"
      : "killed";
    return { m, outcome, seconds: r.seconds, failures, output: r.output };
  } finally {
    await Deno.remove(target);
    await Deno.link(`${ROOT_PATH}${m.path}`, target);
  }
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

async function main(): Promise<number> {
  const t0 = performance.now();
  const only = flag("only")?.split(",").filter(Boolean);
  const chosen = only ? MUTATIONS.filter((m) => only.includes(m.id)) : [...MUTATIONS];
  if (only && chosen.length !== only.length) {
    const known = new Set(MUTATIONS.map((m) => m.id));
    console.error(`unknown mutation ids: ${only.filter((id) => !known.has(id)).join(", ")}`);
    return 2;
  }
  if (flag("list") !== undefined) {
    for (const m of chosen) {
      console.log(`${m.id}\n  ${m.path}\n  rule: ${m.rule}\n  tests: ${m.tests.join(" ")}`);
    }
    return 0;
  }

  console.log(`== mutants: checking ${chosen.length} anchors`);
  const problems = await anchorProblems(ROOT, chosen);
  if (problems.length) {
    for (const p of problems) {
      console.log(`${p.kind === "anchor" ? "ANCHOR LOST" : "BAD ENTRY  "}  ${p.id}  ${p.message}`);
    }
    console.log(
      `${problems.length} mutation(s) cannot be applied: re-point them in tests/mutants/mutations.ts.`,
    );
    console.log(`mutants: 0 killed, 0 survived, ${problems.length} cannot be applied`);
    return 1;
  }

  const cores = navigator.hardwareConcurrency ?? 2;
  const jobs = Math.max(
    1,
    Number(flag("jobs") || Deno.env.get("MUTANTS_JOBS") || Math.min(4, cores)),
  );
  const work = await Deno.makeTempDir({ prefix: "ssi-edge-mutants-" });
  const originals = new Map<string, string>();
  for (const m of chosen) {
    originals.set(m.path, await Deno.readTextFile(`${ROOT_PATH}${m.path}`));
  }
  try {
    const trees: string[] = [];
    for (let i = 0; i < Math.min(jobs, chosen.length); i++) {
      const dir = `${work}/w${i}`;
      await linkTree(ROOT_PATH.replace(/\/$/, ""), dir);
      trees.push(dir);
    }
    console.log(`== mutants: ${trees.length} worker tree(s) under ${work}`);

    if (flag("no-baseline") === undefined) {
      const files = [...new Set(chosen.flatMap((m) => m.tests))].sort();
      const chunks = trees.map((_, i) => files.filter((_, j) => j % trees.length === i));
      console.log(`== mutants: baseline, ${files.length} owning test files unmutated`);
      const runs = await Promise.all(
        chunks.map((c, i) => c.length ? denoTest(trees[i]!, c, false) : undefined),
      );
      const red = runs.filter((r) => r && r.code !== 0);
      if (red.length) {
        for (const r of red) console.log(r!.output);
        console.log("The owning tests fail without any mutation; fix them first.");
        console.log(`mutants: 0 killed, 0 survived, baseline red`);
        return 1;
      }
      const s = runs.map((r) => r ? r.seconds.toFixed(0) : "0").join(" s, ");
      console.log(`baseline green (${s} s)`);
    }

    const results: Result[] = [];
    let next = 0;
    await Promise.all(trees.map(async (dir) => {
      while (next < chosen.length) {
        const m = chosen[next++]!;
        const r = await runMutation(dir, m, originals.get(m.path)!);
        results.push(r);
        const shown = flag("all-failures") === undefined ? 2 : r.failures.length;
        const by = r.failures.length ? `  by ${r.failures.slice(0, shown).join("; ")}` : "";
        console.log(
          `${pad(r.outcome.toUpperCase(), 9)} ${pad(m.id, 34)} ${r.seconds.toFixed(1)} s${by}`,
        );
        if (flag("verbose") !== undefined && r.outcome === "killed") {
          const lines = r.output.replace(ANSI, "").split("\n");
          const at = lines.findIndex((l) => l.trim() === "ERRORS");
          console.log(lines.slice(at + 1, at + 16).join("\n"));
        }
        if (r.outcome === "survived" || r.outcome === "invalid") {
          console.log(`  rule: ${m.rule}\n  ${m.path}; tests: ${m.tests.join(" ")}`);
          if (r.outcome === "invalid") console.log(r.output.split("\n").slice(-25).join("\n"));
        }
      }
    }));

    const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
    const killed = count("killed") + count("timeout");
    const bad = results.filter((r) => r.outcome === "survived" || r.outcome === "invalid");
    console.log("\n== mutants: summary (in list order)");
    for (const m of chosen) {
      const r = results.find((x) => x.m === m)!;
      console.log(`${pad(r.outcome, 9)} ${pad(m.id, 34)} ${r.failures[0] ?? ""}`);
    }
    if (bad.length) {
      console.log(`\nNot killed: ${bad.map((r) => `${r.m.id} (${r.outcome})`).join(", ")}`);
    }
    const secs = ((performance.now() - t0) / 1000).toFixed(0);
    console.log(
      `mutants: ${killed} killed, ${count("survived")} survived, ${
        count("invalid")
      } invalid (${secs} s)`,
    );
    return bad.length === 0 ? 0 : 1;
  } finally {
    // The real files must be as they were: a mutation only ever replaced a link in a copy.
    for (const [path, text] of originals) {
      if (await Deno.readTextFile(`${ROOT_PATH}${path}`) !== text) {
        console.error(
          `!! ${path} changed during the run (not by this runner, which never writes it)`,
        );
      }
    }
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

Deno.exit(await main());
