/**
 * Status of JSON-LD credentials: `BitstringStatusListEntry` (W3C Bitstring Status List v1.0) and
 * the older `StatusList2021Entry`, for the purposes `revocation` and `suspension`. The list
 * credential is fetched through the outbound client, its proof verified with the service's JSON-LD
 * stack (injected: `verifyLd`), kept until its `ttl` (milliseconds) or `validUntil` /
 * `expirationDate`, and read with the field's libraries (`@digitalbazaar/vc-bitstring-status-list`
 * and `@digitalbazaar/vc-status-list`: purpose match, issuer match with the credential, list type,
 * index range, decoding).
 *
 * @module
 */
import * as bitstring from "@digitalbazaar/vc-bitstring-status-list";
import * as statusList2021 from "@digitalbazaar/vc-status-list";
import type { SafeFetch } from "../outbound/mod.ts";
import { fetchList, StatusProblem } from "./fetch_list.ts";
import { fromBase64url, inflatedSize } from "./inflate.ts";
import { freshUntil, type StatusListCache } from "./list_cache.ts";
import type { StatusState, StatusTarget } from "./types.ts";

/** Verifies a JSON-LD credential's proof (the service's `verifyCredential`). */
export type VerifyLd = (
  credential: Record<string, unknown>,
) => Promise<{ verified: boolean; error?: string; issuer: string }>;

/** What the check uses. */
export interface LdStatusDeps {
  cache: StatusListCache;
  safeFetch: SafeFetch;
  verifyLd: VerifyLd;
  now: () => number;
  /** Freshness of a list that gives no `ttl` (the DID cache TTL). */
  defaultTtlMs: number;
}

type Json = Record<string, unknown>;
const BSL = "BitstringStatusListEntry";
const SL2021 = "StatusList2021Entry";
const PURPOSES = ["revocation", "suspension"];
/** The Bitstring Status List minimum: 16 KB uncompressed (131 072 entries of 1 bit). */
const MIN_BSL_BYTES = 16 * 1024;

/** The status of a JSON-LD credential; `unknown` with a message when it cannot be established. */
export async function ldStatus(
  target: Extract<StatusTarget, { format: "ldp_vc" }>,
  deps: LdStatusDeps,
): Promise<{ state: StatusState; message?: string }> {
  const usable = target.entries.filter((e) =>
    (e.type === BSL || e.type === SL2021) && PURPOSES.includes(String(e.statusPurpose))
  );
  if (usable.length === 0) {
    return {
      state: "unknown",
      message: target.entries.length === 0
        ? "The credential has no status entry (credentialStatus)."
        : `The credential's status entries are not ones this service checks (${BSL} or ${SL2021} ` +
          "for revocation or suspension).",
    };
  }
  const set = new Set<string>();
  const problems: string[] = [];
  for (const entry of usable) {
    try {
      if (await entrySet(entry, target.issuer, deps)) set.add(String(entry.statusPurpose));
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (set.has("revocation")) return { state: "revoked" };
  if (set.has("suspension")) return { state: "suspended" };
  if (problems.length > 0) {
    return {
      state: "unknown",
      message: `The status could not be checked: ${problems.join("; ")}.`,
    };
  }
  return { state: "valid" };
}

/** Whether the entry's bit is set; throws a {@link StatusProblem} or the library's error. */
async function entrySet(entry: Json, issuer: string, deps: LdStatusDeps): Promise<boolean> {
  const url = entry.statusListCredential;
  if (typeof url !== "string") {
    throw new StatusProblem("a status entry has no statusListCredential");
  }
  if (entry.statusSize !== undefined && Number(entry.statusSize) !== 1) {
    throw new StatusProblem(
      `the status entry for ${url} has statusSize ${entry.statusSize}; only 1 is supported`,
    );
  }
  const list = await verifiedList(url, entry.type === BSL, deps);
  const options = {
    credential: { issuer, credentialStatus: entry },
    documentLoader: (u: string) => {
      if (u !== url) throw new Error(`unexpected document ${u}`);
      return Promise.resolve({ contextUrl: null, documentUrl: url, document: list });
    },
    verifyMatchingIssuers: true,
  };
  const fail = (e: unknown) =>
    new StatusProblem(`the status list ${url}: ${(e as Error | undefined)?.message ?? e}`);
  if (entry.type === BSL) {
    // {verified, results: [{status}]}: `verified` says whether the check could be made.
    const r = await bitstring.checkStatus({
      ...options,
      verifyBitstringStatusListCredential: false,
    });
    if (!r.verified) throw fail(r.error ?? "not verified");
    return r.results?.[0]?.status === true;
  }
  // Status List 2021's library answers `verified: false` (no error) when the bit is set.
  const r = await statusList2021.checkStatus({ ...options, verifyStatusListCredential: false });
  if (r.error) throw fail(r.error);
  return r.verified === false;
}

/** The list credential at `url`: from the cache while fresh, else fetched and verified. */
async function verifiedList(url: string, isBsl: boolean, deps: LdStatusDeps): Promise<Json> {
  const now = deps.now();
  const cached = await deps.cache.get(url, "ldp", now);
  if (cached) return JSON.parse(cached.body);
  const body = await deps.cache.fetch(
    url,
    deps.now,
    () =>
      fetchList(
        deps.safeFetch,
        url,
        "application/vc+ld+json, application/ld+json, application/json",
      ),
  );
  let doc: Json;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new StatusProblem(`the status list ${url} is not JSON`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw new StatusProblem(`the status list ${url} is not a JSON object`);
  }
  const verified = await deps.verifyLd(doc);
  if (!verified.verified) {
    throw new StatusProblem(`the status list ${url} does not verify: ${verified.error}`);
  }
  const subject = (doc.credentialSubject ?? {}) as Json;
  const encoded = typeof subject.encodedList === "string" ? subject.encodedList : "";
  let size: number;
  try {
    size = await inflatedSize(fromBase64url(isBsl ? encoded.replace(/^u/, "") : encoded), "gzip");
  } catch (err) {
    throw new StatusProblem(`the status list ${url} cannot be decoded: ${(err as Error).message}`);
  }
  if (isBsl && size < MIN_BSL_BYTES) {
    throw new StatusProblem(
      `the status list ${url} has ${
        size * 8
      } entries, fewer than the 131072 Bitstring Status List requires`,
    );
  }
  const ttl = isBsl ? Number(subject.ttl) : NaN;
  const until = [doc.validUntil, doc.expirationDate].map((d) =>
    typeof d === "string" ? Date.parse(d) : NaN
  )
    .find((t) => Number.isFinite(t));
  await deps.cache.put({
    url,
    kind: "ldp",
    body,
    issuer: verified.issuer,
    fetchedAt: now,
    freshUntil: freshUntil({
      fetchedAt: now,
      ttlMs: Number.isFinite(ttl) ? ttl : undefined,
      expiresAt: until,
      defaultTtlMs: deps.defaultTtlMs,
    }),
  }, now);
  return doc;
}
