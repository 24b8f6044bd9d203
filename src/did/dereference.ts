/**
 * DID URL dereferencing (W3C DID Resolution, "DID URL Dereferencing"), as a pure function over the
 * DID's resolution result: fragments (verification methods and services, written absolute or
 * relative), `service`/`serviceType` with an optional `relativeRef` (RFC 3986 reference resolution
 * against the service endpoint), and the errors as DID Core keywords.
 *
 * @module
 */
import type { DidDocument, DidResolutionResult, ParsedDid } from "./types.ts";
import { clip } from "../base/mod.ts";

/** Error keywords of dereferencing (CONTRACT); their HTTP status is the HTTP layer's. */
export const DEREF_ERRORS = [
  "invalidDidUrl",
  "invalidDid",
  "notFound",
  "representationNotSupported",
  "methodNotSupported",
  "internalError",
] as const;

/** One of {@link DEREF_ERRORS}. */
export type DerefError = typeof DEREF_ERRORS[number];

/** What dereferencing gives. */
export type DerefOutcome =
  | {
    kind: "resource";
    content: unknown;
    /** Media type of the content. */
    contentType: string;
    contentMetadata: Record<string, unknown>;
    /** The DID is deactivated (`didDocumentMetadata.deactivated`). */
    deactivated: boolean;
  }
  | { kind: "redirect"; location: string }
  | { kind: "error"; error: DerefError; message: string };

/** DID parameters the resolver applies (versions); the rest are dereferencing parameters. */
export const VERSION_PARAMETERS = ["versionId", "versionTime", "versionNumber"] as const;
const DEREF_PARAMETERS = new Set(["service", "serviceType", "relativeRef"]);

const fail = (error: DerefError, message: string): DerefOutcome => ({
  kind: "error",
  error,
  message,
});

/**
 * Dereferences `url` (parsed, with its DID's `resolution`). `wantsUriList`: the caller accepts
 * `text/uri-list` (a service selection then redirects to its endpoint).
 */
export function dereference(
  url: ParsedDid,
  resolution: DidResolutionResult,
  opts: { wantsUriList?: boolean } = {},
): DerefOutcome {
  const err = resolution.didResolutionMetadata.error;
  if (err !== undefined || !resolution.didDocument) {
    const code = (err ?? "internalError") as DerefError;
    return fail(
      (DEREF_ERRORS as readonly string[]).includes(code) ? code : "internalError",
      resolution.didResolutionMetadata.message ?? `${url.did} could not be resolved.`,
    );
  }
  const doc = resolution.didDocument;
  const deactivated = resolution.didDocumentMetadata.deactivated === true;
  const contentType = resolution.didResolutionMetadata.contentType ?? "application/did+ld+json";
  if (url.path !== undefined) {
    return fail(
      "notFound",
      `did:${url.method} does not define DID paths, so ${clip(url.didUrl)} names no resource.`,
    );
  }
  const params = new URLSearchParams(url.query ?? "");
  for (const name of params.keys()) {
    if (!DEREF_PARAMETERS.has(name) && !(VERSION_PARAMETERS as readonly string[]).includes(name)) {
      return fail("notFound", `The DID parameter "${clip(name)}" is not supported here.`);
    }
  }
  const service = params.get("service") ?? undefined;
  const serviceType = params.get("serviceType") ?? undefined;
  const relativeRef = params.get("relativeRef") ?? undefined;
  if (relativeRef !== undefined && service === undefined && serviceType === undefined) {
    return fail("invalidDidUrl", "relativeRef needs a service (or serviceType) DID parameter.");
  }
  if (service !== undefined || serviceType !== undefined) {
    return selectService(doc, url, { service, serviceType, relativeRef }, {
      contentType,
      metadata: resolution.didDocumentMetadata,
      deactivated,
      wantsUriList: opts.wantsUriList === true,
    });
  }
  if (url.fragment !== undefined) {
    const found = findById(doc, url.did, url.fragment);
    if (!found) {
      return fail(
        "notFound",
        `The DID document of ${clip(url.did)} has no verification method or service "#${
          clip(url.fragment)
        }".`,
      );
    }
    return { kind: "resource", content: found, contentType, contentMetadata: {}, deactivated };
  }
  return {
    kind: "resource",
    content: doc,
    contentType,
    contentMetadata: { ...resolution.didDocumentMetadata },
    deactivated,
  };
}

function selectService(
  doc: DidDocument,
  url: ParsedDid,
  q: { service?: string; serviceType?: string; relativeRef?: string },
  o: {
    contentType: string;
    metadata: Record<string, unknown>;
    deactivated: boolean;
    wantsUriList: boolean;
  },
): DerefOutcome {
  const selected = (doc.service ?? []).filter((s) =>
    (q.service === undefined || sameId(s.id, q.service, url.did)) &&
    (q.serviceType === undefined ||
      (Array.isArray(s.type) ? s.type.includes(q.serviceType) : s.type === q.serviceType))
  );
  const what = q.service !== undefined
    ? `service "${clip(q.service)}"`
    : `service of type "${clip(q.serviceType!)}"`;
  if (selected.length === 0) {
    return fail("notFound", `The DID document of ${clip(url.did)} has no ${what}.`);
  }
  if (q.relativeRef === undefined && !o.wantsUriList) {
    // The document with the selected services only (DID Resolution, no relativeRef).
    return {
      kind: "resource",
      content: { ...doc, service: selected },
      contentType: o.contentType,
      contentMetadata: { ...o.metadata },
      deactivated: o.deactivated,
    };
  }
  const endpoints = selected.flatMap((s) => endpointUrls(s.serviceEndpoint));
  if (endpoints.length === 0) {
    return fail("notFound", `The ${what} has no service endpoint URL.`);
  }
  let location: string;
  try {
    location = q.relativeRef === undefined
      ? new URL(endpoints[0]!).href
      : new URL(q.relativeRef, endpoints[0]!).href;
  } catch {
    return fail(
      "invalidDidUrl",
      `relativeRef "${clip(q.relativeRef ?? "")}" does not resolve against ${clip(endpoints[0]!)}.`,
    );
  }
  if (url.fragment !== undefined) {
    if (location.includes("#")) {
      return fail("invalidDidUrl", "The service endpoint URL has a fragment of its own.");
    }
    location += `#${url.fragment}`;
  }
  return { kind: "redirect", location };
}

/** The endpoint URLs of a service: a string, the strings of a set, a DIDComm endpoint's `uri`. */
function endpointUrls(endpoint: unknown): string[] {
  const one = (e: unknown): string[] => {
    if (typeof e === "string") return [e];
    if (e && typeof e === "object" && typeof (e as { uri?: unknown }).uri === "string") {
      return [(e as { uri: string }).uri];
    }
    return [];
  };
  return Array.isArray(endpoint) ? endpoint.flatMap(one) : one(endpoint);
}

/** True when `id` (absolute or relative to `did`) names the same thing as `wanted`. */
function sameId(id: unknown, wanted: string, did: string): boolean {
  if (typeof id !== "string") return false;
  return absolute(id, did) === absolute(wanted.startsWith("#") ? wanted : `#${wanted}`, did) ||
    absolute(id, did) === absolute(wanted, did);
}

function absolute(id: string, did: string): string {
  if (id.startsWith("#") || id.startsWith("?") || id.startsWith("/")) return did + id;
  return id;
}

/** The verification method (listed or embedded in a relationship) or service with that fragment. */
function findById(doc: DidDocument, did: string, fragment: string): unknown {
  const want = `${did}#${fragment}`;
  const candidates: unknown[] = [...(doc.verificationMethod ?? []), ...(doc.service ?? [])];
  for (const [k, v] of Object.entries(doc)) {
    if (k === "verificationMethod" || k === "service" || !Array.isArray(v)) continue;
    for (const entry of v) if (entry && typeof entry === "object") candidates.push(entry);
  }
  return candidates.find((c) =>
    c && typeof c === "object" && typeof (c as { id?: unknown }).id === "string" &&
    absolute((c as { id: string }).id, did) === want
  );
}
