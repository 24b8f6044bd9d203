/**
 * An OpenID4VP 1.0 authorization request, from the link a person pastes to the checked request
 * this wallet may answer. The link (`openid4vp://`, `haip://`, an `https://` link with the same
 * query) carries the request by value or by reference (`request_uri`, fetched through the safe
 * client with GET, or POST when it says `request_uri_method=post`). `@openid4vc/openid4vp`
 * parses and validates it and checks the client identifier; the signature, the trust chain and
 * times are checked by our callbacks (`request_signature.ts`); then this wallet's own rules: the
 * three prefixes it accepts, the response modes it can answer, a `response_uri` the outbound
 * policy allows, DCQL only. Every refusal names its rule (`refusal.ts`).
 *
 * @module
 */
import * as jose from "jose";
import type { DidResolver } from "../did/mod.ts";
import { type Oid4vpLibs, openid4vpLibs } from "./libs.ts";
import { refusalIn, type RefusalRule, refuse } from "./refusal.ts";
import { requestJwtVerifier } from "./request_signature.ts";
import { POLICY_KINDS, VerifierHttp } from "./verifier_http.ts";
import type { TrustAnchors } from "./x509.ts";

/** The client identifier prefixes this wallet answers. */
export type ClientPrefix = "redirect_uri" | "decentralized_identifier" | "x509_san_dns";

/** A request that passed every rule. */
export interface CheckedRequest {
  /** The whole `client_id`. */
  clientId: string;
  prefix: ClientPrefix;
  /** The audience of the answer (`aud` of key binding JWTs, `domain` of presentations). */
  audience: string;
  responseMode: "direct_post" | "direct_post.jwt";
  responseUri: string;
  nonce: string;
  state?: string;
  dcqlQuery: Record<string, unknown>;
  clientMetadata?: Record<string, unknown>;
  verifierName?: string;
  /** The signed request object's `exp` (ms), if any. */
  expiresAt?: number;
}

/** What reading a request needs. */
export interface RequestReaderDeps {
  http: VerifierHttp;
  resolver: DidResolver;
  anchors?: TrustAnchors;
  now: () => number;
  /** Refuses a URL the outbound policy does not allow (throws a `SafeFetchError`). */
  checkUrl: (url: string) => Promise<unknown>;
}

const SCHEMES = ["openid4vp:", "haip:", "eudi-openid4vp:", "mdoc-openid4vp:", "https:", "http:"];
const MAX_REQUEST_CHARS = 48_000;
/** The formats and algorithms this wallet can present, sent with `request_uri_method=post`. */
const WALLET_METADATA = {
  vp_formats_supported: {
    "dc+sd-jwt": { "sd-jwt_alg_values": ["EdDSA", "ES256"], "kb-jwt_alg_values": ["EdDSA"] },
    ldp_vc: { proof_type_values: ["Ed25519Signature2018", "Ed25519Signature2020"] },
  },
  client_id_prefixes_supported: ["redirect_uri", "decentralized_identifier", "x509_san_dns"],
  request_object_signing_alg_values_supported: ["EdDSA", "ES256", "ES384", "PS256", "RS256"],
  response_modes_supported: ["direct_post", "direct_post.jwt"],
};

/** The library's refusal texts and the rule each one is. */
const LIBRARY_RULES: [RegExp, RefusalRule][] = [
  [/'exp' is in the past|'nbf' is in the future/, "request_expired"],
  [/signed by the same DID|signer method/i, "request_signer"],
  [/san dns names/i, "x509_san_dns"],
  [/response_mode/i, "response_mode"],
  [
    /fully qualified domain name|MUST match the (response|redirect)_uri|response_uri/i,
    "response_uri",
  ],
  [/typ header|client_id does not match|client_id_scheme does not match/, "request_object"],
  [/client identifier|client_id/i, "client_id_prefix"],
  [/dcql|presentation_definition|scope value/i, "dcql_query"],
];

/** The library's description of what it refused. */
function libraryReason(err: unknown): string {
  const e = err as { errorResponse?: { error_description?: string }; message?: string };
  return (e.errorResponse?.error_description ?? e.message ?? String(err)).slice(0, 400);
}

/** A library error as a refusal (ours, found in its cause chain, or one named by its text). */
function asRefusal(err: unknown): never {
  const ours = refusalIn(err);
  if (ours) throw ours;
  const reason = libraryReason(err);
  const rule = LIBRARY_RULES.find(([re]) => re.test(reason))?.[1] ?? "request_syntax";
  return refuse(rule, `${reason.replace(/\.?\s*$/, "")}.`, err);
}

/** The link's query parameters. */
function linkParams(link: string): URLSearchParams {
  const text = link.trim();
  if (/^openid-credential-offer:/i.test(text)) {
    refuse(
      "request_syntax",
      "this is an OpenID4VCI credential offer, not a presentation request; post it to /orgs/{orgId}/openid4vc/offers.",
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse("request_syntax", "the request is not a URI (openid4vp://?…).");
  }
  if (!SCHEMES.includes(url.protocol)) {
    refuse(
      "request_syntax",
      `"${url.protocol}" links are not OpenID4VP requests (openid4vp:, haip: or https: links are).`,
    );
  }
  if (!url.searchParams.get("client_id")) {
    refuse("request_syntax", "the request has no client_id.");
  }
  return url.searchParams;
}

/** The prefix of a client_id, or a refusal. */
function prefixOf(clientId: string): ClientPrefix {
  const p = clientId.includes(":") ? clientId.slice(0, clientId.indexOf(":")) : "";
  if (p === "redirect_uri" || p === "decentralized_identifier" || p === "x509_san_dns") return p;
  if (p === "did") return "decentralized_identifier";
  return refuse(
    "client_id_prefix",
    p === ""
      ? `client_id "${clientId}" names a pre-registered verifier; this wallet has none (redirect_uri:, decentralized_identifier: or x509_san_dns: clients are accepted).`
      : `the client identifier prefix "${p}" is not accepted (redirect_uri:, decentralized_identifier: or x509_san_dns: are).`,
  );
}

/** Fetches the request object of `request_uri` (GET, or POST with our wallet metadata). */
async function fetchRequestObject(params: URLSearchParams, deps: RequestReaderDeps) {
  const uri = params.get("request_uri")!;
  const method = (params.get("request_uri_method") ?? "get").toLowerCase();
  if (method !== "get" && method !== "post") {
    refuse("request_uri", `request_uri_method "${method}" is neither get nor post.`);
  }
  const onPolicy = (m: string): never => refuse("request_uri", `${m}.`);
  const accept = "application/oauth-authz-req+jwt, application/jwt;q=0.9, text/plain;q=0.5";
  const res = method === "post"
    ? await deps.http.call("request object", uri, {
      method: "POST",
      headers: { accept, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ wallet_metadata: JSON.stringify(WALLET_METADATA) }).toString(),
    }, onPolicy)
    : await deps.http.call("request object", uri, { headers: { accept } }, onPolicy);
  if (res.status !== 200) {
    refuse(
      "request_uri",
      `the verifier answered the request_uri (${uri}) with HTTP ${res.status}.`,
    );
  }
  return new TextDecoder().decode(res.body).trim();
}

/** A request object's header, or a refusal. */
function headerOf(jwt: string): Record<string, unknown> {
  const parts = jwt.split(".");
  if (parts.length === 5) {
    refuse("request_uri", "the request object is encrypted (JWE); this wallet reads signed ones.");
  }
  try {
    if (parts.length !== 3) throw new Error();
    return jose.decodeProtectedHeader(jwt) as Record<string, unknown>;
  } catch {
    return refuse("request_uri", "the request object is not a JWT.");
  }
}

/** Reads a request link into a {@link CheckedRequest}, or refuses it naming the rule. */
export async function readAuthorizationRequest(
  link: string,
  deps: RequestReaderDeps,
): Promise<CheckedRequest> {
  if (link.length > MAX_REQUEST_CHARS) {
    refuse("request_syntax", `the request is longer than ${MAX_REQUEST_CHARS} characters.`);
  }
  const params = linkParams(link);
  const clientId = params.get("client_id")!;
  const prefix = prefixOf(clientId);
  if (params.has("request") && params.has("request_uri")) {
    refuse("request_syntax", "the request has both request and request_uri.");
  }
  const jwt = params.has("request_uri")
    ? await fetchRequestObject(params, deps)
    : params.get("request") ?? undefined;
  const signed = jwt !== undefined && headerOf(jwt).alg !== "none";
  if (prefix !== "redirect_uri" && !signed) {
    refuse(
      "signed_request_required",
      `a ${prefix}: client must sign its request object; this request is not signed.`,
    );
  }
  if (prefix === "redirect_uri" && signed) {
    refuse("unsigned_request_required", "a redirect_uri: client must not sign its request.");
  }
  const libs = await openid4vpLibs();
  let input: Record<string, unknown>;
  try {
    input = jwt === undefined
      ? libs.vp.parseOpenid4vpAuthorizationRequest({ authorizationRequest: link.trim() }).params
      : signed
      ? { client_id: clientId, request: jwt }
      : { ...jose.decodeJwt(jwt), client_id: clientId };
  } catch (err) {
    return asRefusal(err);
  }
  let resolved: Awaited<ReturnType<Oid4vpLibs["vp"]["resolveOpenid4vpAuthorizationRequest"]>>;
  try {
    resolved = await libs.vp.resolveOpenid4vpAuthorizationRequest({
      authorizationRequestPayload: input as Parameters<
        Oid4vpLibs["vp"]["resolveOpenid4vpAuthorizationRequest"]
      >[0]["authorizationRequestPayload"],
      callbacks: {
        // deno-lint-ignore no-explicit-any
        verifyJwt: requestJwtVerifier(deps) as any,
        decryptJwe: () => ({ decrypted: false }),
        getX509CertificateMetadata: (cert: string) => ({
          sanDnsNames: deps.anchors?.sanDnsNames(cert) ?? [],
          sanUriNames: deps.anchors?.sanUriNames(cert) ?? [],
        }),
        fetch: deps.http.asFetch(),
        hash: libs.hash,
      },
    });
  } catch (err) {
    return asRefusal(err);
  }
  return await checkPayload(
    resolved.authorizationRequestPayload as Record<string, unknown>,
    { clientId, prefix, audience: resolved.client.effective, jar: resolved.jar?.jwt.payload },
    libs,
    deps,
  );
}

/** This wallet's own rules on a request the library accepted. */
async function checkPayload(
  p: Record<string, unknown>,
  c: { clientId: string; prefix: ClientPrefix; audience: string; jar?: Record<string, unknown> },
  libs: Oid4vpLibs,
  deps: RequestReaderDeps,
): Promise<CheckedRequest> {
  const mode = p.response_mode;
  if (mode !== "direct_post" && mode !== "direct_post.jwt") {
    refuse(
      "response_mode",
      `response_mode "${
        String(mode ?? "fragment")
      }" cannot be answered; direct_post and direct_post.jwt can.`,
    );
  }
  const responseUri = typeof p.response_uri === "string" ? p.response_uri : "";
  if (!responseUri) refuse("response_uri", "the request names no response_uri.");
  const identifier = c.clientId.slice(c.clientId.indexOf(":") + 1);
  if (c.prefix === "redirect_uri" && responseUri !== identifier) {
    refuse(
      "response_uri",
      `a redirect_uri: client identifier must be the response_uri, but the client is ${identifier} and the response_uri is ${responseUri}.`,
    );
  }
  if (c.prefix === "x509_san_dns" && new URL(responseUri).hostname !== identifier) {
    refuse(
      "response_uri",
      `the response_uri host ${
        new URL(responseUri).hostname
      } is not the certificate's DNS name ${identifier}.`,
    );
  }
  try {
    await deps.checkUrl(responseUri);
  } catch (err) {
    const kind = (err as { kind?: string }).kind;
    if (kind && POLICY_KINDS.includes(kind)) {
      refuse("response_uri", `the response_uri is not allowed: ${(err as Error).message}`);
    }
  }
  if (p.transaction_data !== undefined) {
    refuse(
      "transaction_data",
      "the request carries transaction_data, which this wallet cannot sign.",
    );
  }
  if (!p.dcql_query) {
    refuse(
      "dcql_query",
      "the request has no dcql_query; this wallet answers DCQL queries (not presentation_definition or scope).",
    );
  }
  try {
    libs.dcql.DcqlQuery.validate(libs.dcql.DcqlQuery.parse(p.dcql_query as never));
  } catch (err) {
    refuse("dcql_query", `the dcql_query is not valid DCQL: ${libraryReason(err)}`, err);
  }
  const metadata = p.client_metadata as Record<string, unknown> | undefined;
  if (mode === "direct_post.jwt") encryptionKeyOf(metadata);
  const exp = typeof c.jar?.exp === "number" ? c.jar.exp * 1000 : undefined;
  const name = typeof metadata?.client_name === "string" ? metadata.client_name : undefined;
  return {
    clientId: c.clientId,
    prefix: c.prefix,
    audience: c.audience,
    responseMode: mode as CheckedRequest["responseMode"],
    responseUri,
    nonce: String(p.nonce),
    ...(typeof p.state === "string" ? { state: p.state } : {}),
    dcqlQuery: p.dcql_query as Record<string, unknown>,
    ...(metadata ? { clientMetadata: metadata } : {}),
    ...(name ? { verifierName: name.slice(0, 200) } : {}),
    ...(exp ? { expiresAt: exp } : {}),
  };
}

/** Content encryption this wallet can do for `direct_post.jwt`, in preference order. */
export const ENC_VALUES = ["A128GCM", "A256GCM", "A128CBC-HS256", "A256CBC-HS512"];

/**
 * The verifier's response encryption key and `enc` from `client_metadata`: an ECDH-ES key (EC
 * P-256/384/521 or OKP X25519) in `jwks`, and an `enc` both sides support. Refuses otherwise.
 */
export function encryptionKeyOf(
  metadata: Record<string, unknown> | undefined,
): { jwk: jose.JWK; enc: string } {
  const keys = (metadata?.jwks as { keys?: unknown } | undefined)?.keys;
  const usable = (Array.isArray(keys) ? keys : []).filter((k): k is jose.JWK =>
    !!k && typeof k === "object" && (k.use === undefined || k.use === "enc") &&
    (k.alg === undefined || k.alg === "ECDH-ES") &&
    ((k.kty === "EC" && ["P-256", "P-384", "P-521"].includes(k.crv)) ||
      (k.kty === "OKP" && k.crv === "X25519"))
  );
  if (usable.length === 0) {
    refuse(
      "response_encryption",
      "direct_post.jwt needs an ECDH-ES encryption key (EC or X25519) in client_metadata.jwks; the request has none.",
    );
  }
  const offered = metadata?.encrypted_response_enc_values_supported ??
    (typeof metadata?.authorization_encrypted_response_enc === "string"
      ? [metadata.authorization_encrypted_response_enc]
      : ["A128GCM"]);
  const enc = ENC_VALUES.find((e) => Array.isArray(offered) && offered.includes(e));
  if (!enc) {
    refuse(
      "response_encryption",
      `none of the verifier's content encryption values (${
        JSON.stringify(offered)
      }) is one this wallet supports (${ENC_VALUES.join(", ")}).`,
    );
  }
  return { jwk: usable[0]!, enc: enc! };
}
