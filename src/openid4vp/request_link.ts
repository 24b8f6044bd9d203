/**
 * The link a person pastes (`openid4vp://`, `haip://`, an `https://` link with the same query):
 * its parameters, the client identifier prefix, and the request object when there is one (by
 * value in `request`, or fetched from `request_uri` through the safe client: GET, or POST with this
 * wallet's metadata when the link says `request_uri_method=post`).
 *
 * @module
 */
import * as jose from "jose";
import { refuse } from "./refusal.ts";
import { REQUEST_ALGS } from "./request_signature.ts";
import type { VerifierHttp } from "./verifier_http.ts";

/** The client identifier prefixes this wallet answers. */
export type ClientPrefix = "redirect_uri" | "decentralized_identifier" | "x509_san_dns";

const SCHEMES = ["openid4vp:", "haip:", "eudi-openid4vp:", "mdoc-openid4vp:", "https:", "http:"];
const MAX_REQUEST_CHARS = 48_000;
const REQUEST_OBJECT_TYP = "oauth-authz-req+jwt";
const REQUEST_OBJECT_TYPE = `application/${REQUEST_OBJECT_TYP}`;
/**
 * The formats and algorithms this wallet can present, sent with `request_uri_method=post`: key
 * binding JWTs are EdDSA (the agent's Ed25519 key) or ES256 (its P-256 key). The request object
 * algorithms go only to a client whose prefix allows a signed request (OpenID4VP 1.0 §5.10).
 */
function walletMetadata(prefix: ClientPrefix): Record<string, unknown> {
  return {
    vp_formats_supported: {
      "dc+sd-jwt": {
        "sd-jwt_alg_values": ["EdDSA", "ES256"],
        "kb-jwt_alg_values": ["EdDSA", "ES256"],
      },
      ldp_vc: { proof_type_values: ["Ed25519Signature2018", "Ed25519Signature2020"] },
    },
    client_id_prefixes_supported: ["redirect_uri", "decentralized_identifier", "x509_san_dns"],
    ...(prefix === "redirect_uri"
      ? {}
      : { request_object_signing_alg_values_supported: REQUEST_ALGS }),
    response_modes_supported: ["direct_post", "direct_post.jwt"],
  };
}

/** A link read: its parameters, client, and request object. */
export interface RequestLink {
  params: URLSearchParams;
  clientId: string;
  prefix: ClientPrefix;
  /** The request object (compact JWT), by value or fetched; undefined for a request by value. */
  jwt?: string;
  /** Whether the request object is signed (`alg` other than `none`). */
  signed: boolean;
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

/**
 * Fetches the request object of `request_uri`: GET, or POST with our wallet metadata and the
 * `Accept` header OpenID4VP 1.0 §5.10 sets.
 */
async function fetchRequestObject(
  params: URLSearchParams,
  prefix: ClientPrefix,
  http: VerifierHttp,
) {
  const uri = params.get("request_uri")!;
  const method = (params.get("request_uri_method") ?? "get").toLowerCase();
  if (method !== "get" && method !== "post") {
    refuse("request_uri", `request_uri_method "${method}" is neither get nor post.`);
  }
  const onPolicy = (m: string): never => refuse("request_uri", `${m}.`);
  const res = method === "post"
    ? await http.call("request object", uri, {
      method: "POST",
      headers: {
        accept: REQUEST_OBJECT_TYPE,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ wallet_metadata: JSON.stringify(walletMetadata(prefix)) })
        .toString(),
    }, onPolicy)
    : await http.call("request object", uri, {
      headers: { accept: `${REQUEST_OBJECT_TYPE}, application/jwt;q=0.9, text/plain;q=0.5` },
    }, onPolicy);
  if (res.status !== 200) {
    refuse(
      "request_uri",
      `the verifier answered the request_uri (${uri}) with HTTP ${res.status}.`,
    );
  }
  return new TextDecoder().decode(res.body).trim();
}

/**
 * A request object's header, or a refusal. Its `typ` must be `oauth-authz-req+jwt`, signed or not
 * (OpenID4VP 1.0 §5: wallets do not process other request objects).
 */
function headerOf(jwt: string): Record<string, unknown> {
  const parts = jwt.split(".");
  if (parts.length === 5) {
    refuse("request_uri", "the request object is encrypted (JWE); this wallet reads signed ones.");
  }
  let header: Record<string, unknown>;
  try {
    if (parts.length !== 3) throw new Error();
    header = jose.decodeProtectedHeader(jwt) as Record<string, unknown>;
  } catch {
    return refuse("request_uri", "the request object is not a JWT.");
  }
  if (header.typ !== REQUEST_OBJECT_TYP) {
    refuse(
      "request_object",
      `the request object's typ is ${
        header.typ === undefined ? "missing" : `"${String(header.typ)}"`
      }; it must be "${REQUEST_OBJECT_TYP}".`,
    );
  }
  return header;
}

/**
 * Reads a link: its parameters, its prefix, the request object. Refuses a link that is not a
 * request, a prefix this wallet does not accept, and an unsigned request where the prefix needs a
 * signature (or a signed one where it must not have one).
 */
export async function readRequestLink(link: string, http: VerifierHttp): Promise<RequestLink> {
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
    ? await fetchRequestObject(params, prefix, http)
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
  return { params, clientId, prefix, ...(jwt !== undefined ? { jwt } : {}), signed };
}
