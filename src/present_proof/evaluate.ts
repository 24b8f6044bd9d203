/**
 * Evaluates a DIF Presentation Exchange definition (v1 and v2) against the org's stored W3C
 * credentials: which credentials satisfy each input descriptor (the PE library decides: JSONPath
 * fields, JSON Schema filters, `limit_disclosure`, `is_holder`, format), which descriptors an
 * answer needs (`submission_requirements`, see `requirements.ts`) and which credential fills each
 * (the person's `selection`, else the newest match).
 *
 * A JSON-LD credential signed with an Ed25519 suite cannot disclose less than all of it, so a
 * descriptor with `limit_disclosure: "required"` is never met by one, and every claim of a chosen
 * credential is in `disclosedClaims`.
 *
 * @module
 */
import { newPex } from "./pex.ts";
import type { DescriptorMatch, DescriptorView } from "./record.ts";
import { MAX_MATCHES } from "./record.ts";
import type { PeRequest } from "./request.ts";
import { describeDescriptor, neededDescriptors } from "./requirements.ts";
import { isObject } from "../base/mod.ts";

type Json = Record<string, unknown>;
/** A stored credential that may be presented (revoked or suspended ones are left out before). */
export interface Candidate {
  id: string;
  credential: Json;
}

/** The outcome of an evaluation. */
export interface Evaluation {
  /** Every input descriptor with its matches (newest first, capped). */
  descriptors: DescriptorView[];
  /** Descriptor id → candidate id for the descriptors the answer needs, when it can be met. */
  selection?: Record<string, string>;
  /** Why it cannot be met (409), naming the unmet descriptor or requirement. */
  unmet?: string;
  /** A selection that names what the request does not have (400). */
  badSelection?: string;
}

/** Every claim path of a credential's subject(s), e.g. `["credentialSubject", "name"]`. */
export function claimPaths(credential: Json): string[][] {
  const out: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (isObject(v) || Array.isArray(v)) {
      const entries = Object.entries(v);
      if (entries.length === 0) out.push(path);
      for (const [k, inner] of entries) walk(inner, [...path, k]);
    } else out.push(path);
  };
  walk(credential.credentialSubject, ["credentialSubject"]);
  return out;
}

/** The proof types of a credential. */
function proofTypes(credential: Json): string[] {
  const proofs = ([] as unknown[]).concat(credential.proof ?? []);
  return proofs.map((p) => (isObject(p) ? String(p.type) : ""));
}

/** The `ldp_vc` proof types a format object allows, or undefined when it does not restrict them. */
function allowedProofTypes(format: unknown): string[] | undefined {
  if (!isObject(format)) return undefined;
  const ldp = format.ldp_vc ?? format.ldp;
  if (!isObject(ldp) || !Array.isArray(ldp.proof_type)) return undefined;
  return ldp.proof_type.map(String);
}

/**
 * Evaluates `request` against `candidates` (newest first). `holderDid` answers `is_holder`
 * constraints; `selection` maps descriptor ids to candidate ids the person chose.
 */
export async function evaluateRequest(
  request: PeRequest,
  candidates: readonly Candidate[],
  opts: { holderDid: string; selection?: Record<string, string> },
): Promise<Evaluation> {
  const pd = request.presentation_definition;
  const descriptors = pd.input_descriptors;
  const ids = new Set(descriptors.map((d) => String(d.id)));
  for (const key of Object.keys(opts.selection ?? {})) {
    if (!ids.has(key)) {
      return {
        descriptors: [],
        badSelection: `selection names input descriptor "${key}", which the request does not ` +
          `have (it has ${[...ids].map((i) => `"${i}"`).join(", ")}).`,
      };
    }
  }
  const pex = await newPex();
  const credentials = candidates.map((c) => c.credential);
  const matchesOf = new Map<string, Candidate[]>();
  for (const d of descriptors) {
    // One descriptor at a time: which credentials satisfy it, whatever the requirements say.
    const single = { ...pd, input_descriptors: [d], submission_requirements: undefined };
    const format = d.format ?? pd.format;
    let indexes: number[] = [];
    if (credentials.length > 0) {
      const result = pex.selectFrom(single as never, credentials as never, {
        holderDIDs: [opts.holderDid],
        limitDisclosureSignatureSuites: [],
        ...(isObject(format) ? { restrictToFormats: format as never } : {}),
      });
      indexes = result.areRequiredCredentialsPresent === "error" ? [] : result.vcIndexes ?? [];
    }
    // The library checks the format's name, not an ldp_vc proof_type list: that is checked here.
    const allowed = allowedProofTypes(format);
    const found = indexes.map((i) => candidates[i]!).filter((c) =>
      !allowed || proofTypes(c.credential).some((t) => allowed.includes(t))
    );
    matchesOf.set(String(d.id), found);
  }
  const views: DescriptorView[] = descriptors.map((d) => {
    const fields = isObject(d.constraints) && Array.isArray(d.constraints.fields)
      ? d.constraints.fields
      : [];
    return {
      id: String(d.id),
      ...(typeof d.name === "string" ? { name: d.name } : {}),
      ...(typeof d.purpose === "string" ? { purpose: d.purpose } : {}),
      ...(Array.isArray(d.group) ? { group: d.group.map(String) } : {}),
      requestedFields: fields.filter(isObject).map((f) =>
        Array.isArray(f.path) ? String(f.path[0]) : ""
      ),
      matches: (matchesOf.get(String(d.id)) ?? []).slice(0, MAX_MATCHES).map((
        c,
      ): DescriptorMatch => ({
        credentialId: c.id,
        format: "ldp_vc",
        disclosedClaims: claimPaths(c.credential),
      })),
    };
  });
  const satisfiable = new Set([...matchesOf].filter(([, m]) => m.length > 0).map(([id]) => id));
  const needed = neededDescriptors(pd, satisfiable, new Set(Object.keys(opts.selection ?? {})));
  if (!needed.ok) return { descriptors: views, unmet: needed.why };
  const selection: Record<string, string> = {};
  for (const id of needed.ids) {
    const matches = matchesOf.get(id)!;
    const chosen = opts.selection?.[id];
    if (chosen === undefined) {
      selection[id] = matches[0]!.id;
    } else if (matches.some((c) => c.id === chosen)) {
      selection[id] = chosen;
    } else {
      const d = descriptors.find((x) => String(x.id) === id)!;
      return {
        descriptors: views,
        unmet: `The selected credential "${chosen}" does not satisfy ${
          describeDescriptor({ id, ...(typeof d.name === "string" ? { name: d.name } : {}) })
        } (or is revoked, suspended or not stored).`,
      };
    }
  }
  return { descriptors: views, selection };
}
