/**
 * The answers to DID URLs, the dereferencing step of `answerDid` (CONTRACT "Universal Resolver API
 * and DID URL dereferencing"): resolve the DID URL's DID (at the asked version) through the cache,
 * dereference it (`../dereference.ts`, pure), and answer the resource, a dereferencing result, a 303
 * to a service endpoint, or an error keyword with its status. A DID with version parameters only
 * is a resolution, answered like one unless the caller asked for a dereferencing result.
 *
 * @module
 */
import {
  ANSWER_VARY,
  answerHeaders,
  type AnswerResolver,
  cacheControlFor,
  ERROR_STATUS,
  jsonBody,
  maxAge,
  resolutionResponse,
  type UrlAnswer,
} from "./answer.ts";
import type { ResolveOptions } from "../cache/cache.ts";
import {
  type DerefRepresentation,
  negotiate,
  negotiateDereferencing,
} from "./content_negotiation.ts";
import { dereference, type DerefError, VERSION_PARAMETERS } from "../dereference.ts";
import { parseDidWithReason } from "../syntax.ts";
import type { DidVersion, Resolution } from "../types.ts";
import { clip } from "../../base/mod.ts";

/** What DID URL answers need. */
export interface UrlAnswerDeps {
  resolver: {
    lookup(did: string, options?: ResolveOptions): Promise<Resolution>;
    jsonDocument?: AnswerResolver["jsonDocument"];
  };
  /** `DID_RESOLUTION_PUBLIC`: answers may be kept by shared caches. */
  isPublic: boolean;
  now: () => number;
}

/**
 * Builds the dereferencing step: `(didUrl, accept, noCache) → answer`, whose `peer` says that a
 * failure it reports is the DID's network method's (a DID host's), not ours.
 */
export function createUrlAnswer(
  deps: UrlAnswerDeps,
): (didUrl: string, accept: string | undefined, noCache: boolean) => Promise<UrlAnswer> {
  const scope = deps.isPublic ? "public" : "private";
  return async (didUrl, accept, noCache) => {
    const rep = negotiateDereferencing(accept);
    if (rep === null) {
      const message = "None of the Accept media types is offered for a DID URL; use " +
        "application/did-url-dereferencing, application/did+ld+json, application/json or " +
        "text/uri-list.";
      const json = { kind: "result", contentType: "application/json" } as const;
      return { res: failure(json, "representationNotSupported", message), peer: false };
    }
    const parsed = parseDidWithReason(didUrl);
    if (!parsed.ok) {
      const didPart = didUrl.slice(0, didEnd(didUrl));
      const keyword: DerefError = parseDidWithReason(didPart).ok ? "invalidDidUrl" : "invalidDid";
      const what = keyword === "invalidDid" ? "DID" : "DID URL";
      const message = `${clip(didUrl)} is not a valid ${what}: ${parsed.message}.`;
      return { res: failure(rep, keyword, message), peer: false };
    }
    const p = parsed.value;
    const params = new URLSearchParams(p.query ?? "");
    let version: DidVersion | undefined;
    let onlyVersion = true;
    for (const [name, value] of params) {
      if ((VERSION_PARAMETERS as readonly string[]).includes(name)) {
        (version ??= {})[name as keyof DidVersion] = value;
      } else onlyVersion = false;
    }
    const resolution = await deps.resolver.lookup(p.did, { noCache, version });
    const peer = resolution.source === "network";
    if (onlyVersion && p.path === undefined && p.fragment === undefined) {
      const resolutionRep = negotiate(accept);
      if (resolutionRep !== null && rep.kind !== "result") {
        const json = jsonBody(deps.resolver, resolution, resolutionRep);
        const res = resolutionResponse(resolution, resolutionRep, scope, deps.now, json);
        return { res, peer };
      }
    }
    const outcome = dereference(p, resolution.result, { wantsUriList: rep.kind === "uri-list" });
    if (outcome.kind === "error") {
      return { res: failure(rep, outcome.error, outcome.message), peer };
    }
    const cc = cacheControlFor(maxAge(resolution.freshness, deps.now), scope);
    if (outcome.kind === "redirect") {
      const headers = { location: outcome.location, "cache-control": cc, vary: ANSWER_VARY };
      return { res: new Response(null, { status: 303, headers }), peer };
    }
    const status = outcome.deactivated ? 410 : 200;
    if (rep.kind === "result") {
      const servedFromCache = resolution.result.didResolutionMetadata.servedFromCache === true;
      const body = {
        dereferencingMetadata: { contentType: outcome.contentType, servedFromCache },
        contentStream: outcome.content,
        contentMetadata: outcome.contentMetadata,
      };
      const headers = answerHeaders(rep.contentType, cc);
      return { res: new Response(JSON.stringify(body), { status, headers }), peer };
    }
    const contentType = (rep.kind === "resource" ? rep.contentType : undefined) ??
      outcome.contentType;
    const headers = answerHeaders(contentType, cc);
    return { res: new Response(JSON.stringify(outcome.content), { status, headers }), peer };
  };
}

function failure(rep: DerefRepresentation, error: DerefError, message: string): Response {
  const body = {
    dereferencingMetadata: { error, message },
    contentStream: null,
    contentMetadata: {},
  };
  return new Response(JSON.stringify(body), {
    status: ERROR_STATUS[error],
    headers: answerHeaders(
      rep.kind === "result" ? rep.contentType : "application/json",
      "no-store",
    ),
  });
}

/** Where the DID of a DID URL ends (its first `/`, `?` or `#`). */
function didEnd(didUrl: string): number {
  for (let i = 4; i < didUrl.length; i++) {
    const ch = didUrl[i];
    if (ch === "/" || ch === "?" || ch === "#") return i;
  }
  return didUrl.length;
}
