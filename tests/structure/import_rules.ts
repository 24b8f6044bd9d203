/**
 * The import rules of `src/` (ARCHITECTURE.md "Features meet at one public file each"), as a pure
 * check over an import graph, and the graph of the real code from `deno info --json`:
 *
 * 1. no import cycle between files;
 * 2. no cycle between folders (a top-level file of `src/` counts as a folder of its own);
 * 3. a file imports a file of another folder only through one of that folder's public files: its
 *    `mod.ts`, or its light entry `lite.ts` (the few exports that code loaded before the app, the
 *    DID early lane, needs from the folder; a nested `mod.ts` is not a public file);
 * 4. route files (`routes.ts`, `*_routes.ts`) do not import the KV module: they call services;
 * 5. a light entry stays light: nothing it loads at run time (type-only imports aside) is a
 *    folder's `mod.ts` or an npm package (`npm:…`), so the first stage of the start loads none of
 *    the app and skips npm resolution; `base/mod.ts` is the one surface it may load, because
 * 6. `base/` stands on nothing: it imports no other folder and no npm package;
 * 7. a protocol folder never imports another protocol folder: they meet in `credentials/`,
 *    `status/`, `didcomm/` and `did/` (and are wired together only by `compose.ts`).
 */

/** Files (paths relative to `src/`) and the files each imports. */
export type ImportGraph = Map<string, string[]>;

/** A module of `deno info --json` with the parts of its dependencies these checks read. */
export interface InfoModule {
  specifier: string;
  dependencies?: {
    specifier?: string;
    code?: { specifier?: string };
    type?: { specifier?: string };
    isDynamic?: boolean;
  }[];
}

/** `deno info --json <entry>` run in `root`: the entry's roots and every module of its graph. */
export async function denoInfo(
  root: URL,
  entry: string,
): Promise<{ roots: string[]; modules: InfoModule[] }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/**
 * The specifiers reached from `roots` through static imports that load code (no dynamic
 * `import()`): local modules, and the `npm:` packages they import (not walked into).
 */
export function staticReach(modules: InfoModule[], roots: string[]): Set<string> {
  const bySpecifier = new Map(modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    if (s.startsWith("npm:")) continue;
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      const to = d.code?.specifier;
      if (to !== undefined && d.isDynamic !== true) stack.push(to);
    }
  }
  return seen;
}

/** One broken rule, in words. */
export interface Violation {
  rule:
    | "file cycle"
    | "folder cycle"
    | "deep import"
    | "kv in route file"
    | "heavy light entry"
    | "base imports"
    | "protocol import";
  message: string;
}

/** The folder every other may use, light entries too: it imports nothing (rule 6). */
const BASE = "base";

/** The protocol folders (rule 7). */
export const PROTOCOLS = ["issue_credential", "present_proof", "openid4vci", "openid4vp"];

/** The public files of a folder: its surface and its light entry. */
const PUBLIC_FILES = ["mod.ts", "lite.ts"];

/** True when `file` is the public file of its (top-level) folder. */
function isPublicFile(file: string): boolean {
  const i = file.indexOf("/");
  return i >= 0 && PUBLIC_FILES.includes(file.slice(i + 1));
}

/** The folder of a file: its first path segment, or the file itself at the top level. */
export function folderOf(file: string): string {
  const i = file.indexOf("/");
  return i < 0 ? file : file.slice(0, i);
}

const isRouteFile = (file: string) => /(^|\/)([a-z_]+_)?routes\.ts$/.test(file);

/**
 * Every violation of the rules in `graph`; `runtime` holds only the imports that load code (the
 * graph without type-only imports), for rule 5. Default: every import loads code.
 */
export function checkImports(graph: ImportGraph, runtime: ImportGraph = graph): Violation[] {
  const out: Violation[] = [];
  for (const cycle of cycles(graph)) {
    out.push({ rule: "file cycle", message: cycle.join(" → ") });
  }
  const folders: ImportGraph = new Map();
  for (const [from, tos] of graph) {
    const f = folderOf(from);
    const list = folders.get(f) ?? [];
    for (const to of tos) {
      const g = folderOf(to);
      if (g !== f && !list.includes(g)) list.push(g);
      if (g !== f && folderOf(to) !== to && !isPublicFile(to)) {
        out.push({ rule: "deep import", message: `${from} imports ${to}; use ${g}/mod.ts` });
      }
      if (isRouteFile(from) && folderOf(to) === "kv") {
        out.push({ rule: "kv in route file", message: `${from} imports ${to}` });
      }
      if (f === BASE && g !== f) {
        out.push({ rule: "base imports", message: `${from} imports ${to}` });
      }
      if (g !== f && PROTOCOLS.includes(f) && PROTOCOLS.includes(g)) {
        out.push({ rule: "protocol import", message: `${from} imports ${to}` });
      }
    }
    folders.set(f, list);
  }
  for (const cycle of cycles(folders)) {
    out.push({ rule: "folder cycle", message: cycle.join(" → ") });
  }
  for (const [from, tos] of runtime) {
    if (folderOf(from) !== BASE) continue;
    for (const to of tos.filter((t) => t.startsWith("npm:"))) {
      out.push({ rule: "base imports", message: `${from} imports ${to}` });
    }
  }
  for (const entry of runtime.keys()) {
    if (!entry.endsWith("/lite.ts") || !isPublicFile(entry)) continue;
    const heavy = (f: string) =>
      (f.endsWith("/mod.ts") && f !== `${BASE}/mod.ts`) || f.startsWith("npm:");
    for (const path of pathsTo(runtime, entry, heavy)) {
      out.push({ rule: "heavy light entry", message: path.join(" → ") });
    }
  }
  return out;
}

/** For each file reachable from `start` that `hit` accepts, one import path to it (breadth first). */
function pathsTo(graph: ImportGraph, start: string, hit: (file: string) => boolean): string[][] {
  const via = new Map<string, string>([[start, start]]);
  const queue = [start];
  const found: string[][] = [];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (via.has(w)) continue;
      via.set(w, v);
      if (hit(w)) {
        const path = [w];
        for (let u = v; u !== start; u = via.get(u)!) path.unshift(u);
        found.push([start, ...path]);
      } else queue.push(w);
    }
  }
  return found;
}

/** The cycles of a directed graph: each strongly connected component of more than one node, or a node importing itself. */
export function cycles(graph: ImportGraph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.reverse());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/**
 * The import graph of the files under `src/` reachable from `entries`, from `deno info --json`:
 * every import (`all`), and the imports that load code (`runtime`: no type-only import; npm
 * packages as `npm:<name>` nodes).
 */
export async function srcImportGraph(
  root: URL,
  entries: string[],
): Promise<{ all: ImportGraph; runtime: ImportGraph }> {
  const src = new URL("src/", root).href;
  const all: ImportGraph = new Map();
  const runtime: ImportGraph = new Map();
  for (const entry of entries) {
    const graphs = await entryGraph(root, src, entry);
    for (const [file, deps] of graphs.all) all.set(file, deps);
    for (const [file, deps] of graphs.runtime) runtime.set(file, deps);
  }
  return { all, runtime };
}

async function entryGraph(
  root: URL,
  src: string,
  entry: string,
): Promise<{ all: ImportGraph; runtime: ImportGraph }> {
  const info = await denoInfo(root, entry);
  const all: ImportGraph = new Map();
  const runtime: ImportGraph = new Map();
  for (const m of info.modules) {
    if (!m.specifier.startsWith(src)) continue;
    const deps = new Set<string>();
    const code = new Set<string>();
    for (const d of m.dependencies ?? []) {
      for (const s of [d.code?.specifier, d.type?.specifier]) {
        if (s?.startsWith(src)) deps.add(s.slice(src.length));
      }
      const c = d.code?.specifier;
      if (c?.startsWith(src)) code.add(c.slice(src.length));
      else if (c?.startsWith("npm:")) code.add(`npm:${d.specifier}`);
    }
    all.set(m.specifier.slice(src.length), [...deps]);
    runtime.set(m.specifier.slice(src.length), [...code]);
  }
  return { all, runtime };
}
