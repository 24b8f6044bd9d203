/**
 * DCQL evaluation against the org's stored credentials, with the `dcql` library: SD-JWT VCs
 * (answering `dc+sd-jwt` and the older `vc+sd-jwt` queries) and W3C JSON-LD credentials
 * (`ldp_vc`). For each credential query the matching credentials, newest first, and the claim
 * paths an answer with each would disclose: for an SD-JWT VC exactly the requested claims (the
 * first claim set the credential satisfies, `null` wildcards expanded to the array elements that
 * are there and pass `values`), for a JSON-LD credential, which cannot disclose selectively, every
 * claim of its subject.
 *
 * @module
 */
import { type DocumentLoader, ldpTypes, type StoredCredential } from "../credentials/mod.ts";
import type { Oid4vpLibs } from "./libs.ts";
import type { ClaimPath, QueryMatch, QueryMatches } from "./record.ts";
import { isObject } from "../base/mod.ts";

/** A stored credential as DCQL sees it. */
export interface Candidate {
  id: string;
  format: "dc+sd-jwt" | "ldp_vc";
  createdAt: string;
  /** SD-JWT VC: `vct`. */
  vct?: string;
  /** JSON-LD: the credential's `type`s. */
  types?: string[];
  /** SD-JWT VC: every claim (plain and disclosable); JSON-LD: the whole credential. */
  claims: Record<string, unknown>;
  /** SD-JWT VC: the SD-JWT as received. */
  compact?: string;
}

/**
 * The org's presentable credentials as DCQL candidates: a JSON-LD credential answers `type_values`
 * with its types as written and expanded over `loader`'s contexts (`ldpTypes`).
 */
export async function candidatesOf(
  orgId: string,
  stored: StoredCredential[],
  loader: DocumentLoader,
): Promise<Candidate[]> {
  return await Promise.all(stored.map(async (c): Promise<Candidate> => {
    const { record } = c;
    if (c.format === "dc+sd-jwt") {
      return {
        id: record.id,
        format: c.format,
        createdAt: record.createdAt,
        vct: c.record.vct,
        claims: c.record.claims,
        compact: c.record.compact,
      };
    }
    return {
      id: record.id,
      format: c.format,
      createdAt: record.createdAt,
      types: await ldpTypes(`${orgId}/${record.id}`, c.record.credential, loader),
      claims: c.record.credential,
    };
  }));
}

type Json = Record<string, unknown>;
type ClaimQuery = { id?: string; path: (string | number | null)[]; values?: unknown[] };
type CredentialQuery = { id: string; format: string; claims?: ClaimQuery[] };
type ParsedQuery = { credentials: CredentialQuery[]; credential_sets?: CredentialSet[] };
type CredentialSet = { options: string[][]; required?: boolean };

/** Concrete paths of `value` under a DCQL path (`null` = every array element). */
function expand(
  value: unknown,
  path: (string | number | null)[],
  values: unknown[] | undefined,
  at: ClaimPath = [],
): ClaimPath[] {
  if (path.length === 0) {
    return values === undefined || values.some((v) => v === value) ? [at] : [];
  }
  const [head, ...rest] = path as [string | number | null, ...(string | number | null)[]];
  if (head === null) {
    if (!Array.isArray(value)) return [];
    return value.flatMap((v, i) => expand(v, rest, values, [...at, i]));
  }
  if (typeof head === "number") {
    return Array.isArray(value) && head < value.length
      ? expand(value[head], rest, values, [...at, head])
      : [];
  }
  return isObject(value) && head in value ? expand(value[head], rest, values, [...at, head]) : [];
}

/** Every leaf path under `value` (JSON-LD: what presenting the credential shows). */
function leafPaths(value: unknown, at: ClaimPath): ClaimPath[] {
  if (Array.isArray(value)) {
    return value.length === 0 ? [at] : value.flatMap((v, i) => leafPaths(v, [...at, i]));
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0 ? [at] : keys.flatMap((k) => leafPaths(value[k], [...at, k]));
  }
  return [at];
}

/** The DCQL credentials of the candidates, and which candidate each one is. */
function dcqlCredentials(candidates: Candidate[]) {
  const creds: Json[] = [];
  const owner: Candidate[] = [];
  for (const c of candidates) {
    if (c.format === "dc+sd-jwt") {
      for (const format of ["dc+sd-jwt", "vc+sd-jwt"]) {
        creds.push({
          credential_format: format,
          vct: c.vct ?? "",
          claims: c.claims,
          cryptographic_holder_binding: true,
        });
        owner.push(c);
      }
    } else {
      creds.push({
        credential_format: "ldp_vc",
        type: c.types ?? [],
        claims: c.claims,
        cryptographic_holder_binding: true,
      });
      owner.push(c);
    }
  }
  return { creds, owner };
}

/** The disclosed paths of one valid credential of a query. */
function disclosed(c: Candidate, q: CredentialQuery, valid: Json): ClaimPath[] {
  if (c.format === "ldp_vc") {
    return leafPaths(c.claims.credentialSubject, ["credentialSubject"]);
  }
  const sets = (valid.claims as Json | undefined)?.valid_claim_sets;
  const first = Array.isArray(sets) ? sets[0] as Json | undefined : undefined;
  const indexes = Array.isArray(first?.valid_claim_indexes)
    ? first.valid_claim_indexes as number[]
    : [];
  const out: ClaimPath[] = [];
  const seen = new Set<string>();
  for (const i of indexes) {
    const claim = q.claims?.[i];
    if (!claim) continue;
    for (const p of expand(c.claims, claim.path, claim.values)) {
      const key = JSON.stringify(p);
      if (!seen.has(key)) out.push(p), seen.add(key);
    }
  }
  return out;
}

/**
 * The credential queries every answer includes: all of them without `credential_sets`, else those
 * in every option of a required set (a query that is one of several alternatives is not).
 */
function requiredIds(query: ParsedQuery): Set<string> {
  if (!query.credential_sets) return new Set(query.credentials.map((c) => c.id));
  const ids = new Set<string>();
  for (const set of query.credential_sets) {
    if (set.required === false) continue;
    const [first, ...rest] = set.options;
    for (const id of first ?? []) if (rest.every((o) => o.includes(id))) ids.add(id);
  }
  return ids;
}

/** Evaluates a (validated) DCQL query against the candidates. */
export function matchQuery(
  libs: Oid4vpLibs,
  dcqlQuery: Json,
  candidates: Candidate[],
): QueryMatches[] {
  const { DcqlQuery } = libs.dcql;
  const parsed = DcqlQuery.parse(dcqlQuery as never);
  const query = parsed as unknown as ParsedQuery;
  const newestFirst = [...candidates].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const { creds, owner } = dcqlCredentials(newestFirst);
  const result = DcqlQuery.query(parsed, creds as never) as unknown as {
    credential_matches: Record<string, { success: boolean; valid_credentials?: Json[] }>;
  };
  const required = requiredIds(query);
  return query.credentials.map((q) => {
    const found = result.credential_matches[q.id];
    const matches: QueryMatch[] = [];
    const seen = new Set<string>();
    for (const valid of found?.success ? found.valid_credentials ?? [] : []) {
      const c = owner[valid.input_credential_index as number];
      if (!c || seen.has(c.id)) continue;
      seen.add(c.id);
      matches.push({
        credentialId: c.id,
        format: c.format,
        disclosedClaims: disclosed(c, q, valid),
      });
    }
    return { id: q.id, required: required.has(q.id), matches };
  });
}

/**
 * The credential queries an answer includes, with the credential for each: the caller's
 * `selection` where given, else the newest match. Every required `credential_sets` entry gets the
 * first of its options the selection names completely, else its first option that can be
 * answered; without sets every query is answered; a selected query outside them is added. Returns
 * the unmet query (or set) in words when the request cannot be answered.
 */
export function chooseCredentials(
  dcqlQuery: Json,
  queries: QueryMatches[],
  selection: Record<string, string>,
): { chosen: Map<string, QueryMatch> } | { unmet: string } {
  const byId = new Map(queries.map((q) => [q.id, q]));
  // A Map, not the object: a query id may be "constructor" or "toString".
  const selected = new Map(Object.entries(selection));
  const pick = (id: string): QueryMatch | undefined => {
    const q = byId.get(id);
    const wanted = selected.get(id);
    return wanted === undefined ? q?.matches[0] : q?.matches.find((m) => m.credentialId === wanted);
  };
  const chosen = new Map<string, QueryMatch>();
  const sets = (dcqlQuery as unknown as ParsedQuery).credential_sets;
  if (!sets) {
    for (const q of queries) {
      const m = pick(q.id);
      if (!m) return { unmet: `credential query "${q.id}"` };
      chosen.set(q.id, m);
    }
  } else {
    for (const set of sets) {
      const option = set.options.find((o) => o.every((id) => selected.has(id))) ??
        set.options.find((o) => o.every((id) => pick(id) !== undefined));
      if (!option) {
        if (set.required === false) continue;
        return {
          unmet: `credential set ${
            set.options.map((o) => `[${o.map((id) => `"${id}"`).join(", ")}]`).join(" or ")
          }`,
        };
      }
      for (const id of option) chosen.set(id, pick(id)!);
    }
  }
  for (const id of selected.keys()) {
    const m = pick(id);
    if (m && !chosen.has(id)) chosen.set(id, m);
  }
  return { chosen };
}
