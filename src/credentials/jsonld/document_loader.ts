import { BUNDLED_CONTEXTS, DID_V1_URL, LAZY_CONTEXTS } from "./contexts/index.ts";
import { verificationKeyDocument } from "./verification_key.ts";
import { Lru } from "../../base/mod.ts";
import type {
  DocumentLoader,
  LdDidDocument,
  LdVerificationMethod,
  RemoteContexts,
  RemoteDocument,
  ResolveDid,
} from "./types.ts";

/** Why the document loader refused a URL. */
export type JsonLdLoaderErrorCode =
  | "unknown_context"
  | "context_unavailable"
  | "did_resolver_missing"
  | "did_not_resolved"
  | "verification_method_not_found"
  | "unsupported_verification_method";

/**
 * A document loader failure. Only a context under `JSONLD_CONTEXT_ALLOW` is ever fetched
 * (`context_unavailable` when that fails); every other refusal happens before any network call.
 */
export class JsonLdLoaderError extends Error {
  /** Machine-readable reason. */
  readonly code: JsonLdLoaderErrorCode;
  /** The URL that was asked for. */
  readonly url: string;

  constructor(code: JsonLdLoaderErrorCode, url: string, message: string) {
    super(message);
    this.name = "JsonLdLoaderError";
    this.code = code;
    this.url = url;
  }
}

/**
 * The loader's refusal behind an error of `jsonld` or the vc libraries, which wrap it as a
 * `cause`, in `details.cause`, or among `errors`; undefined when there is none.
 */
export function findLoaderError(error: unknown, depth = 0): JsonLdLoaderError | undefined {
  if (error instanceof JsonLdLoaderError) return error;
  if (depth > 6 || typeof error !== "object" || error === null) return undefined;
  const e = error as { errors?: unknown; cause?: unknown; details?: unknown };
  const details = typeof e.details === "object" && e.details !== null
    ? (e.details as { cause?: unknown })
    : undefined;
  for (const n of [...(Array.isArray(e.errors) ? e.errors : []), e.cause, details?.cause]) {
    const found = findLoaderError(n, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Options of {@link createDocumentLoader}. */
export interface DocumentLoaderOptions {
  /** Resolves bare DIDs; needed only to dereference `did:` URLs. */
  resolveDid?: ResolveDid;
  /** Extra context documents by URL, consulted before the bundled ones. */
  contexts?: ReadonlyMap<string, object>;
  /** Contexts that are not bundled: the `JSONLD_CONTEXT_ALLOW` store. Default: none. */
  remote?: RemoteContexts;
}

/** The message of a context from elsewhere, naming the context and the setting. */
export function refusedContextMessage(url: string, allow: readonly string[]): string {
  return `The JSON-LD context ${url} is not bundled with this service and is not under ` +
    (allow.length === 0
      ? "JSONLD_CONTEXT_ALLOW, which is not set; "
      : `JSONLD_CONTEXT_ALLOW (${allow.join(", ")}); `) +
    "an operator can allow its URL prefix there.";
}

const RELATIONSHIPS = [
  "assertionMethod",
  "authentication",
  "capabilityInvocation",
  "capabilityDelegation",
  "keyAgreement",
] as const;

/** How many resolved DID documents one loader keeps. */
const LOADER_DID_CACHE_MAX = 256;

/**
 * Creates a JSON-LD document loader.
 *
 * - Context URLs are answered from {@link BUNDLED_CONTEXTS} (plus `contexts`), then from
 *   `remote` (contexts under `JSONLD_CONTEXT_ALLOW`, fetched once and kept); any other URL
 *   throws a {@link JsonLdLoaderError} `unknown_context` at once, naming the setting.
 * - `did:…#fragment` returns that verification method in the form the suites read
 *   (`verification_key.ts`): an Ed25519 key as an `Ed25519VerificationKey2020` whatever its
 *   original encoding (base58, multibase or JWK), a P-256 or P-384 key as a `Multikey`.
 * - A bare `did:…` returns a minimal controller document (DID v1 context first,
 *   `id` and the verification relationships as absolute method ids), which is
 *   what jsonld-signatures' ControllerProofPurpose reads.
 *
 * Resolved DID documents are cached for the lifetime of the loader, the last
 * `LOADER_DID_CACHE_MAX` of them (a loader per verification is "cold", a
 * reused one is "warm").
 */
export function createDocumentLoader(options: DocumentLoaderOptions = {}): DocumentLoader {
  const { resolveDid, contexts, remote } = options;
  const didCache = new Lru<Promise<LdDidDocument>>(LOADER_DID_CACHE_MAX);

  function resolve(did: string, url: string): Promise<LdDidDocument> {
    const cached = didCache.get(did);
    if (cached) return cached;
    if (!resolveDid) {
      throw new JsonLdLoaderError(
        "did_resolver_missing",
        url,
        `cannot dereference ${url}: no DID resolver was given`,
      );
    }
    const pending = resolveDidDocument(resolveDid, did, url);
    didCache.set(did, pending);
    pending.catch(() => didCache.delete(did));
    return pending;
  }

  return async (url: string): Promise<RemoteDocument> => {
    const context = contexts?.get(url) ?? BUNDLED_CONTEXTS.get(url) ??
      await LAZY_CONTEXTS.get(url)?.();
    if (context) return { contextUrl: null, documentUrl: url, document: context };

    if (url.startsWith("did:")) {
      const hash = url.indexOf("#");
      const did = hash === -1 ? url : url.slice(0, hash);
      if (!/^did:[a-z0-9]+:[^/?#]+$/.test(did)) {
        throw new JsonLdLoaderError(
          "verification_method_not_found",
          url,
          `DID URL ${url} has a path or query; only did and did#fragment are supported`,
        );
      }
      const doc = await resolve(did, url);
      return {
        contextUrl: null,
        documentUrl: url,
        document: hash === -1 ? controllerDocument(doc) : verificationMethodDocument(doc, url),
      };
    }

    if (remote) return { contextUrl: null, documentUrl: url, document: await remote.load(url) };
    throw new JsonLdLoaderError("unknown_context", url, refusedContextMessage(url, []));
  };
}

async function resolveDidDocument(
  resolveDid: ResolveDid,
  did: string,
  url: string,
): Promise<LdDidDocument> {
  let doc: LdDidDocument | null | undefined;
  try {
    doc = await resolveDid(did);
  } catch (cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new JsonLdLoaderError("did_not_resolved", url, `could not resolve ${did}: ${why}`);
  }
  if (!doc || typeof doc !== "object") {
    throw new JsonLdLoaderError("did_not_resolved", url, `could not resolve ${did}`);
  }
  if (doc.id !== did) {
    throw new JsonLdLoaderError(
      "did_not_resolved",
      url,
      `resolver returned DID document ${String(doc.id)} for ${did}`,
    );
  }
  return doc;
}

function absolute(did: string, ref: string): string {
  return ref.startsWith("#") ? `${did}${ref}` : ref;
}

function refId(did: string, entry: string | LdVerificationMethod): string {
  return absolute(did, typeof entry === "string" ? entry : entry.id);
}

function controllerDocument(doc: LdDidDocument): object {
  const out: Record<string, unknown> = { "@context": DID_V1_URL, id: doc.id };
  for (const rel of RELATIONSHIPS) {
    const entries = doc[rel];
    if (Array.isArray(entries)) out[rel] = entries.map((e) => refId(doc.id, e));
  }
  return out;
}

function findMethod(doc: LdDidDocument, id: string): LdVerificationMethod | undefined {
  const candidates: Array<string | LdVerificationMethod> = [...(doc.verificationMethod ?? [])];
  for (const rel of RELATIONSHIPS) candidates.push(...(doc[rel] ?? []));
  for (const c of candidates) {
    if (typeof c === "object" && c !== null && absolute(doc.id, c.id) === id) return c;
  }
  return undefined;
}

function verificationMethodDocument(doc: LdDidDocument, url: string): object {
  const vm = findMethod(doc, url);
  if (!vm) {
    throw new JsonLdLoaderError(
      "verification_method_not_found",
      url,
      `verification method ${url} is not in the DID document of ${doc.id}`,
    );
  }
  const out = verificationKeyDocument(vm, url, absolute(doc.id, vm.controller ?? doc.id));
  if (!out) {
    throw new JsonLdLoaderError(
      "unsupported_verification_method",
      url,
      `verification method ${url} (${vm.type}) is not an Ed25519, P-256 or P-384 public key`,
    );
  }
  return out;
}
