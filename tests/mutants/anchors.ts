/**
 * The mutation list checked against a tree: every mutation's anchor must occur exactly once in its
 * file, every owning test file must exist, ids are unique. Used by the runner (`run.ts`, before
 * anything runs) and by `anchors_test.ts` (so a moved line turns the ordinary suite red too).
 */
import { type Mutation, MUTATIONS } from "./mutations.ts";

/** Why a mutation cannot be applied to the tree as it is. */
export interface AnchorProblem {
  id: string;
  path: string;
  /** `anchor`: the anchor or its file is not where the list says; `list`: the entry itself. */
  kind: "anchor" | "list";
  /** What is wrong, for a person: the file, the count, the anchor's first line. */
  message: string;
}

/** How often `needle` occurs in `text` (non-overlapping). */
export function occurrences(text: string, needle: string): number {
  if (needle === "") return 0;
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** The mutated text of `m` (its anchor replaced once), from the file's text. */
export function applyMutation(text: string, m: Mutation): string {
  const at = text.indexOf(m.anchor);
  return text.slice(0, at) + m.replacement + text.slice(at + m.anchor.length);
}

function firstLine(s: string): string {
  const line = s.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return line.length > 90 ? line.slice(0, 87) + "..." : line;
}

/** Every problem of `mutations` in the tree at `root` (a file URL ending in `/`). */
export async function anchorProblems(
  root: URL,
  mutations: readonly Mutation[] = MUTATIONS,
): Promise<AnchorProblem[]> {
  const problems: AnchorProblem[] = [];
  const seen = new Set<string>();
  for (const m of mutations) {
    const say = (message: string, kind: AnchorProblem["kind"] = "list") =>
      problems.push({ id: m.id, path: m.path, kind, message });
    if (seen.has(m.id)) say(`the id "${m.id}" is used twice`);
    seen.add(m.id);
    if (m.anchor === m.replacement) say("the replacement equals the anchor");
    if (m.tests.length === 0) say("no owning test file is named");
    for (const t of m.tests) {
      try {
        await Deno.stat(new URL(t, root));
      } catch {
        say(`the owning test file ${t} does not exist`);
      }
    }
    let text: string;
    try {
      text = await Deno.readTextFile(new URL(m.path, root));
    } catch {
      say(`the file ${m.path} does not exist (moved?); anchor: ${firstLine(m.anchor)}`, "anchor");
      continue;
    }
    const n = occurrences(text, m.anchor);
    if (n !== 1) {
      say(
        `the anchor occurs ${n} times in ${m.path} (exactly 1 is needed): ${firstLine(m.anchor)}`,
        "anchor",
      );
    }
  }
  return problems;
}
