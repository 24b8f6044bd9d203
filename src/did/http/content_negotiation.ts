/**
 * `Accept` negotiation of `GET /dids/{did}` (CONTRACT.md "DID resolution"):
 * `application/did-resolution`, `application/ld+json;profile="https://w3id.org/did-resolution"`,
 * `application/json`, `*∕*` (and `application/*`) or no header → the whole result;
 * `application/did+json`, `application/did+ld+json`, `application/did` → the bare document;
 * anything else → null (406). Highest q wins; on a tie, the range listed first. Answers for
 * header strings are memoized (bounded), so the hot path does no parsing.
 */
import { Lru } from "../../base/mod.ts";

/** What to send. */
export interface Representation {
  /** `result`: the DidResolutionResult; `document`: the DID document alone. */
  kind: "result" | "document";
  /** Content type of a successful response. */
  contentType: string;
}

/** The DID Resolution profile URI for `application/ld+json`. */
export const RESOLUTION_PROFILE = "https://w3id.org/did-resolution";

const JSON_RESULT: Representation = { kind: "result", contentType: "application/json" };
const OFFERS: Record<string, Representation> = {
  "application/did-resolution": { kind: "result", contentType: "application/did-resolution" },
  "application/json": JSON_RESULT,
  "*/*": JSON_RESULT,
  "application/*": JSON_RESULT,
  "application/did+json": { kind: "document", contentType: "application/did+json" },
  "application/did+ld+json": { kind: "document", contentType: "application/did+ld+json" },
  "application/did": { kind: "document", contentType: "application/did" },
};
const LD_RESULT: Representation = {
  kind: "result",
  contentType: `application/ld+json;profile="${RESOLUTION_PROFILE}"`,
};

function offerFor(range: string): { rep: Representation | undefined; q: number } {
  const { type, q, profile } = mediaRange(range);
  if (type === "application/ld+json") {
    const ok = profile !== undefined && profile.split(/\s+/).includes(RESOLUTION_PROFILE);
    return { rep: ok ? LD_RESULT : undefined, q };
  }
  return { rep: OFFERS[type], q };
}

/** Chooses the representation for an `Accept` header; null when none is acceptable. */
export function parseAccept(header: string): Representation | null {
  let best: Representation | null = null;
  let bestQ = 0;
  for (const range of header.split(",")) {
    if (range.trim() === "") continue;
    const { rep, q } = offerFor(range);
    if (rep !== undefined && q > bestQ) {
      best = rep;
      bestQ = q;
    }
  }
  return best;
}

/** Answers by `Accept` header string (bounded: a client cannot grow it). */
const memo = new Lru<Representation | null>(512);

/** `parseAccept` with the empty header meaning "anything" and answers memoized. */
export function negotiate(header: string | undefined): Representation | null {
  if (header === undefined || header === "") return JSON_RESULT;
  let rep = memo.get(header);
  if (rep === undefined) {
    rep = header.length > 1024 ? null : parseAccept(header);
    memo.set(header, rep);
  }
  return rep;
}

/** The DID URL Dereferencing profile URI for `application/ld+json`. */
export const DEREFERENCING_PROFILE = "https://w3id.org/did-url-dereferencing";

/** What to send for a DID URL. */
export type DerefRepresentation =
  /** The `{dereferencingMetadata, contentStream, contentMetadata}` envelope. */
  | { kind: "result"; contentType: string }
  /** The resource itself; `contentType` undefined: the resolution's own media type. */
  | { kind: "resource"; contentType?: string }
  /** `text/uri-list`: a selected service answers with a redirect to its endpoint. */
  | { kind: "uri-list" };

const DEREF_OFFERS: Record<string, DerefRepresentation> = {
  "application/did-url-dereferencing": {
    kind: "result",
    contentType: "application/did-url-dereferencing",
  },
  "text/uri-list": { kind: "uri-list" },
  "application/did+json": { kind: "resource", contentType: "application/did+json" },
  "application/did+ld+json": { kind: "resource", contentType: "application/did+ld+json" },
  "application/did": { kind: "resource", contentType: "application/did" },
  "application/json": { kind: "resource", contentType: "application/json" },
  "application/did-resolution": { kind: "resource" },
  "*/*": { kind: "resource" },
  "application/*": { kind: "resource" },
};
const LD_DEREF: DerefRepresentation = {
  kind: "result",
  contentType: `application/ld+json;profile="${DEREFERENCING_PROFILE}"`,
};

/**
 * Chooses the representation of a dereferenced DID URL (CONTRACT "Universal Resolver API and DID
 * URL dereferencing"): the dereferencing result for its media types, else the resource itself.
 * No header: the resource. Null when nothing acceptable is offered.
 */
export function negotiateDereferencing(header: string | undefined): DerefRepresentation | null {
  if (header === undefined || header.trim() === "") return { kind: "resource" };
  if (header.length > 1024) return null;
  let best: DerefRepresentation | null = null;
  let bestQ = 0;
  for (const range of header.split(",")) {
    if (range.trim() === "") continue;
    const { type, q, profile } = mediaRange(range);
    let rep: DerefRepresentation | undefined;
    if (type === "application/ld+json") {
      const profiles = profile?.split(/\s+/) ?? [];
      rep = profiles.includes(DEREFERENCING_PROFILE)
        ? LD_DEREF
        : profiles.includes(RESOLUTION_PROFILE)
        ? { kind: "resource" }
        : undefined;
    } else rep = DEREF_OFFERS[type];
    if (rep !== undefined && q > bestQ) {
      best = rep;
      bestQ = q;
    }
  }
  return best;
}

function mediaRange(range: string): { type: string; q: number; profile?: string } {
  const parts = range.split(";");
  let q = 1;
  let profile: string | undefined;
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    const name = p.slice(0, eq).trim().toLowerCase();
    const value = p.slice(eq + 1).trim().replace(/^"|"$/g, "");
    if (name === "q") {
      const n = Number(value);
      q = Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
    } else if (name === "profile") profile = value;
  }
  return { type: parts[0]!.trim().toLowerCase(), q, profile };
}
