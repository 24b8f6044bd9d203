/**
 * The OpenAPI descriptions of the DID routes (`GET /dids/{did}`, the Universal Resolver API).
 * Documentation only: the answers come from `answerDid`, which validates nothing with zod.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/mod.ts";
import { DEREFERENCING_PROFILE, RESOLUTION_PROFILE } from "./content_negotiation.ts";
import { DidDocumentSchema, DidResolutionResultSchema } from "./schemas.ts";

const resultContent = {
  "application/json": { schema: DidResolutionResultSchema },
  "application/did-resolution": { schema: DidResolutionResultSchema },
  [`application/ld+json;profile="${RESOLUTION_PROFILE}"`]: { schema: DidResolutionResultSchema },
};
const failure = (description: string) => ({ description, content: resultContent });

function dereferencingResultSchema() {
  return z.object({
    dereferencingMetadata: z.record(z.string(), z.unknown()),
    contentStream: z.unknown(),
    contentMetadata: z.record(z.string(), z.unknown()),
  }).openapi("DereferencingResult");
}

const dereferencingContent = {
  "application/did-url-dereferencing": { schema: dereferencingResultSchema() },
  [`application/ld+json;profile="${DEREFERENCING_PROFILE}"`]: {
    schema: dereferencingResultSchema(),
  },
};

/** `GET /dids/{did}` or (`universal`) `GET /1.0/identifiers/{identifier}`. */
export function resolveRoute(isPublic: boolean, universal: boolean) {
  return createRoute({
    method: "get",
    path: universal ? "/1.0/identifiers/{identifier}" : "/dids/{did}",
    operationId: universal ? "resolveIdentifier" : "resolveDid",
    summary: universal
      ? "Resolve a DID or dereference a DID URL (Universal Resolver API)"
      : "Resolve a DID or dereference a DID URL",
    description: (universal
      ? "The DIF Universal Resolver API over the same resolver, cache and auth rule as `/dids`. "
      : "") +
      "Resolves did:key, did:jwk, did:peer (0, 2, 4), did:web, did:webvh, did:plc (from the " +
      "verified operation log of `DID_PLC_DIRECTORY_URL`), the did-resolver plug-in drivers " +
      "(did:pkh; did:ethr and did:polygon on the networks of `DID_ETHR_NETWORKS` and " +
      "`DID_POLYGON_NETWORKS`) and, when configured, other methods through a universal " +
      "resolver. A version (`versionId`, `versionTime`) is cached under its full DID URL. The path is taken raw (`did:web:example.com%3A3000` " +
      "stays as written); a path starting with `did%3A` is percent-decoded once. " +
      "A DID URL is dereferenced: the fragment arrives encoded (`%23key-1`), the DID parameters " +
      "encoded in the path or as the HTTP query (`?service=files&relativeRef=/a` answers 303). " +
      "`?noCache=true` or `Cache-Control: no-cache` bypasses and refreshes the cache. " +
      "Any web origin may call (`Access-Control-Allow-Origin: *`); a preflight needs no token.",
    tags: ["DID resolution"],
    ...(isPublic ? { security: [] } : {}),
    request: {
      params: z.object({
        [universal ? "identifier" : "did"]: z.string().openapi({
          param: { name: universal ? "identifier" : "did", in: "path" },
          example: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
        }),
      }),
      query: z.object({
        noCache: z.enum(["true", "false"]).optional(),
        service: z.string().optional(),
        relativeRef: z.string().optional(),
        versionId: z.string().optional().openapi({
          description: "did:webvh and did:plc: a version's id; did:ethr: a block number",
        }),
        versionTime: z.string().optional().openapi({
          description: "did:webvh, did:plc and did:ethr: the version in effect at this RFC 3339 " +
            "time (did:ethr: as of the last block at or before it)",
        }),
      }),
    },
    responses: {
      200: {
        description: "Resolved (the whole result, or the bare document for a document media " +
          "type), or dereferenced (the resource, or a dereferencing result when asked for).",
        content: {
          ...resultContent,
          "application/did+json": { schema: DidDocumentSchema },
          "application/did+ld+json": { schema: DidDocumentSchema },
          "application/did": { schema: DidDocumentSchema },
          ...dereferencingContent,
        },
      },
      303: { description: "A service with relativeRef: `Location` is the resolved URL." },
      400: failure("invalidDid, or invalidDidUrl for a DID URL"),
      404: failure("notFound"),
      406: failure("representationNotSupported: no acceptable media type"),
      410: failure("The DID is deactivated (didDocumentMetadata.deactivated)"),
      500: failure("internalError"),
      501: failure("methodNotSupported"),
      ...(isPublic ? {} : errorResponses(401)),
    },
  });
}

/** A `GET /1.0/…` document of the Universal Resolver API. */
export function documentRoute(
  isPublic: boolean,
  path: string,
  operationId: string,
  summary: string,
  schema: z.ZodType,
) {
  return createRoute({
    method: "get",
    path,
    operationId,
    summary,
    tags: ["DID resolution"],
    ...(isPublic ? { security: [] } : {}),
    responses: {
      200: { description: summary, content: { "application/json": { schema } } },
      ...(isPublic ? {} : errorResponses(401)),
    },
  });
}
