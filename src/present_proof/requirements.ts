import { isObject } from "../base/mod.ts";
/**
 * Which input descriptors an answer fills (DIF Presentation Exchange `submission_requirements`),
 * given which descriptors the org's credentials can satisfy (decided by the PE library, see
 * `evaluate.ts`). Without requirements every descriptor is needed; `all` needs every member of its
 * group (or nested requirement), `pick` needs `count` (else `min`, else 1) of them, preferring
 * descriptors the person selected, then the definition's order, so nothing more is disclosed than
 * the verifier asks for.
 *
 * @module
 */

type Json = Record<string, unknown>;
/** The descriptor ids an answer fills, or why the request cannot be met. */
export type Needed = { ok: true; ids: string[] } | { ok: false; why: string };

interface Descriptor {
  id: string;
  name?: string;
  group?: string[];
}

/** `Input descriptor "id" ("name")`, for sentences. */
export function describeDescriptor(d: Descriptor): string {
  return `input descriptor "${d.id}"${d.name ? ` (${d.name})` : ""}`;
}

/**
 * The descriptors an answer needs. `satisfiable` tells which descriptor ids have a matching
 * credential; `preferred` are descriptor ids the person selected.
 */
export function neededDescriptors(
  definition: Json,
  satisfiable: ReadonlySet<string>,
  preferred: ReadonlySet<string>,
): Needed {
  const descriptors = (definition.input_descriptors as Json[]).map((d) => ({
    id: String(d.id),
    ...(typeof d.name === "string" ? { name: d.name } : {}),
    ...(Array.isArray(d.group) ? { group: d.group.map(String) } : {}),
  }));
  const requirements = definition.submission_requirements;
  if (!Array.isArray(requirements) || requirements.length === 0) {
    const missing = descriptors.find((d) => !satisfiable.has(d.id));
    return missing
      ? { ok: false, why: `No stored credential satisfies ${describeDescriptor(missing)}.` }
      : { ok: true, ids: descriptors.map((d) => d.id) };
  }
  const ids = new Set<string>();
  for (const req of requirements) {
    const r = resolve(req, descriptors, satisfiable, preferred);
    if (!r.ok) return r;
    for (const id of r.ids) ids.add(id);
  }
  // In the definition's order.
  return { ok: true, ids: descriptors.map((d) => d.id).filter((id) => ids.has(id)) };
}

function resolve(
  req: unknown,
  descriptors: Descriptor[],
  satisfiable: ReadonlySet<string>,
  preferred: ReadonlySet<string>,
): Needed {
  if (!isObject(req)) return { ok: false, why: "A submission requirement is not an object." };
  const label = typeof req.name === "string"
    ? `submission requirement "${req.name}"`
    : typeof req.from === "string"
    ? `the submission requirement on group "${req.from}"`
    : "a nested submission requirement";
  let options: { needs: Needed; prefers: boolean }[];
  if (typeof req.from === "string") {
    const from = req.from;
    options = descriptors.filter((d) => d.group?.includes(from)).map((d) => ({
      needs: satisfiable.has(d.id)
        ? { ok: true, ids: [d.id] }
        : { ok: false, why: `No stored credential satisfies ${describeDescriptor(d)}.` },
      prefers: preferred.has(d.id),
    }));
  } else if (Array.isArray(req.from_nested)) {
    options = req.from_nested.map((nested) => {
      const needs = resolve(nested, descriptors, satisfiable, preferred);
      return { needs, prefers: needs.ok && needs.ids.some((id) => preferred.has(id)) };
    });
  } else {
    return { ok: false, why: `${label} has neither "from" nor "from_nested".` };
  }
  if (req.rule === "all") {
    const failed = options.find((o) => !o.needs.ok);
    if (failed && !failed.needs.ok) return { ok: false, why: `${label}: ${failed.needs.why}` };
    return { ok: true, ids: options.flatMap((o) => (o.needs.ok ? o.needs.ids : [])) };
  }
  if (req.rule !== "pick") return { ok: false, why: `${label} has an unknown rule.` };
  const n = typeof req.count === "number" ? req.count : typeof req.min === "number" ? req.min : 1;
  const ordered = [...options.filter((o) => o.prefers), ...options.filter((o) => !o.prefers)];
  const met = ordered.filter((o) => o.needs.ok);
  if (met.length < n) {
    const reasons = ordered.filter((o) => !o.needs.ok).map((o) => (o.needs.ok ? "" : o.needs.why));
    return {
      ok: false,
      why: `${label} needs ${n} of ${options.length}, but only ${met.length} can be met. ` +
        reasons.join(" "),
    };
  }
  return { ok: true, ids: met.slice(0, n).flatMap((o) => (o.needs.ok ? o.needs.ids : [])) };
}
