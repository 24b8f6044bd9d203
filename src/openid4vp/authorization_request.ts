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
import { type ClientPrefix, readRequestLink } from "./request_link.ts";
import { encryptionKeyOf } from "./response_encryption.ts";
import { POLICY_KINDS, type VerifierHttp } from "./verifier_http.ts";
import type { TrustAnchors } from "./x509.ts";

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
  [/client_id does not match|client_id_scheme does not match/, "request_object"],
  [/client identifier|client_id/i, "client_id_prefix"],
  [/dcql|presentation_definition|scope value/i, "dcql_query"],
];

/**
 * The library's description of what it refused. A schema error starts with the whole request the
 * library quotes ("Error validating schema with data {…}"), which says nothing about what is wrong
 * and would name a rule by the parameters it happens to hold: only the issues after it are kept.
 */
function libraryReason(err: unknown): string {
  const e = err as { errorResponse?: { error_description?: string }; message?: string };
  const text = e.errorResponse?.error_description ?? e.message ?? String(err);
  return text.replace(/^Error validating schema with data .*\n?/, "the request is not valid:\n")
    .slice(0, 400);
}

/** A library error as a refusal (ours, found in its cause chain, or one named by its text). */
function asRefusal(err: unknown): never {
  const ours = refusalIn(err);
  if (ours) throw ours;
  const reason = libraryReason(err);
  const rule = LIBRARY_RULES.find(([re]) => re.test(reason))?.[1] ?? "request_syntax";
  return refuse(rule, `${reason.replace(/\.?\s*$/, "")}.`, err);
}

/** Reads a request link into a {@link CheckedRequest}, or refuses it naming the rule. */
export async function readAuthorizationRequest(
  link: string,
  deps: RequestReaderDeps,
): Promise<CheckedRequest> {
  const { clientId, prefix, jwt, signed } = await readRequestLink(link, deps.http);
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
  // The library leaves an unsigned request by value unchecked against its schema, so these two
  // (OpenID4VP 1.0 §5.2 `nonce`, §5.6 `vp_token`) are checked here for every request.
  if (p.response_type !== "vp_token") {
    const type = String(p.response_type ?? "");
    refuse(
      "response_type",
      `response_type "${type}" cannot be answered; this wallet answers vp_token.`,
    );
  }
  if (typeof p.nonce !== "string" || p.nonce === "") {
    refuse("request_syntax", "the request has no nonce to bind the presentation to.");
  }
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
    nonce: p.nonce as string,
    ...(typeof p.state === "string" ? { state: p.state } : {}),
    dcqlQuery: p.dcql_query as Record<string, unknown>,
    ...(metadata ? { clientMetadata: metadata } : {}),
    ...(name ? { verifierName: name.slice(0, 200) } : {}),
    ...(exp ? { expiresAt: exp } : {}),
  };
}
