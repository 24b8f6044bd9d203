/**
 * DID and DID URL syntax (W3C DID Core section 3.1 / 3.2 ABNF, RFC 3986 for path, query, fragment).
 *
 * ```
 * did                = "did:" method-name ":" method-specific-id
 * method-name        = 1*method-char          ; method-char = %x61-7A / DIGIT
 * method-specific-id = *( *idchar ":" ) 1*idchar
 * idchar             = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
 * did-url            = did path-abempty [ "?" query ] [ "#" fragment ]
 * ```
 */
import { fail, ok, type ParsedDid, type Result } from "./types.ts";

/** Longest DID URL accepted. Large enough for did:peer:2 DIDs with several services and did:peer:4 long forms. */
export const MAX_DID_LENGTH = 8192;

const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const isIdChar = (c: number) => isAlpha(c) || isDigit(c) || c === 0x2e || c === 0x2d || c === 0x5f;
/** RFC 3986 unreserved / sub-delims / ":" / "@" (pchar without pct-encoded). */
const PCHAR_EXTRA = new Set("-._~!$&'()*+,;=:@".split("").map((ch) => ch.charCodeAt(0)));
const isPchar = (c: number) => isAlpha(c) || isDigit(c) || PCHAR_EXTRA.has(c);

/** Checks `%HH` at index i. */
function validPct(s: string, i: number): boolean {
  return i + 2 < s.length && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2));
}

/** Validates a path/query/fragment part; `extra` are further allowed characters ("/" and "?"). */
function checkUrlPart(part: string, what: string, extra: string): string | null {
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c === 0x25) {
      if (!validPct(part, i)) return `invalid percent-encoding in the DID URL ${what}`;
      i += 2;
      continue;
    }
    if (isPchar(c) || extra.includes(part[i]!)) continue;
    return `character ${JSON.stringify(part[i])} is not allowed in the DID URL ${what}`;
  }
  return null;
}

/**
 * Parses a DID or DID URL and says why when it is not one.
 * The DID itself (method name and method-specific id) is checked strictly against the ABNF.
 */
export function parseDidWithReason(input: string): Result<ParsedDid> {
  if (typeof input !== "string" || input.length === 0) return fail("the DID is empty");
  if (input.length > MAX_DID_LENGTH) {
    return fail(`the DID is longer than ${MAX_DID_LENGTH} characters`);
  }
  if (!input.startsWith("did:")) return fail('a DID starts with "did:"');

  // Method name.
  let i = 4;
  while (i < input.length) {
    const c = input.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || isDigit(c)) i++;
    else break;
  }
  if (i === 4) return fail("the DID method name is missing or not lowercase letters and digits");
  if (input[i] !== ":") {
    return fail("the DID method name may only contain lowercase letters and digits");
  }
  const method = input.slice(4, i);
  i++;

  // Method-specific id: idchars and colons, last segment non-empty.
  const idStart = i;
  while (i < input.length) {
    const c = input.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) break; // "/" "?" "#" end the DID
    if (c === 0x25) {
      if (!validPct(input, i)) return fail("invalid percent-encoding in the DID");
      i += 3;
      continue;
    }
    if (c === 0x3a || isIdChar(c)) {
      i++;
      continue;
    }
    return fail(`character ${JSON.stringify(input[i])} is not allowed in a DID`);
  }
  const id = input.slice(idStart, i);
  if (id.length === 0) return fail("the method-specific identifier is empty");
  if (id.endsWith(":")) return fail("the method-specific identifier ends with a colon");

  const did = input.slice(0, i);
  const parsed: ParsedDid = { did, method, id, didUrl: input };

  // DID URL parts.
  let rest = input.slice(i);
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    const fragment = rest.slice(hash + 1);
    const err = checkUrlPart(fragment, "fragment", "/?");
    if (err) return fail(err);
    parsed.fragment = fragment;
    rest = rest.slice(0, hash);
  }
  const q = rest.indexOf("?");
  if (q >= 0) {
    const query = rest.slice(q + 1);
    const err = checkUrlPart(query, "query", "/?");
    if (err) return fail(err);
    parsed.query = query;
    rest = rest.slice(0, q);
  }
  if (rest.length > 0) {
    const err = checkUrlPart(rest, "path", "/");
    if (err) return fail(err);
    parsed.path = rest;
  }
  return ok(parsed);
}

/** Parses a DID or DID URL; `null` when it is not syntactically valid. */
export function parseDid(input: string): ParsedDid | null {
  const r = parseDidWithReason(input);
  return r.ok ? r.value : null;
}
