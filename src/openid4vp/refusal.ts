/**
 * Why a presentation request is refused. Every refusal names the rule it applies (a stable
 * identifier in the message and in `details[0].path`), so a person and a program can both tell
 * which check said no. A refused request is never recorded and nothing is sent to the verifier.
 *
 * @module
 */
import { AppError } from "../base/mod.ts";

/** The rules that refuse a request. */
export type RefusalRule =
  /** Not an OpenID4VP authorization request, one that does not parse, or one without a nonce. */
  | "request_syntax"
  /** The request object could not be fetched from `request_uri`, or is not a JWT. */
  | "request_uri"
  /** The client identifier prefix is not one this wallet accepts. */
  | "client_id_prefix"
  /** The prefix needs a signed request object and the request is not signed. */
  | "signed_request_required"
  /** `redirect_uri:` requests must not be signed. */
  | "unsigned_request_required"
  /** The request object's signature does not verify with the key it names. */
  | "request_signature"
  /** The request object is signed by a key that is not the client's (another DID, a cert). */
  | "request_signer"
  /** The request object has expired (`exp`) or is not valid yet (`nbf`, `iat`). */
  | "request_expired"
  /** `client_id` outside and inside the request object differ, or `typ` is wrong. */
  | "request_object"
  /** `response_uri` breaks the client identifier prefix's rule, or the outbound policy. */
  | "response_uri"
  /** Only `response_type=vp_token` is answered. */
  | "response_type"
  /** Only `direct_post` and `direct_post.jwt` are answered. */
  | "response_mode"
  /** `direct_post.jwt` needs an encryption key of the verifier this wallet can use. */
  | "response_encryption"
  /** The x5c chain does not end at a configured trust anchor (or none is configured). */
  | "x509_trust_chain"
  /** The leaf certificate's DNS names do not include the client identifier. */
  | "x509_san_dns"
  /** Only DCQL queries are answered, and the query must be valid DCQL. */
  | "dcql_query"
  /** Transaction data cannot be signed by this wallet. */
  | "transaction_data";

/** 400: the request was refused by `rule`; nothing was recorded or sent. */
export class RequestRefused extends AppError {
  constructor(readonly rule: RefusalRule, reason: string, opts: { cause?: unknown } = {}) {
    super(
      "presentation_request_refused",
      400,
      `The presentation request is refused (rule ${rule}): ${
        reason.replace(/[.\s]*$/, ".")
      } Nothing was sent to the verifier.`,
      { cause: opts.cause, details: [{ path: rule, message: reason }] },
    );
  }
}

/** Throws a {@link RequestRefused}. */
export function refuse(rule: RefusalRule, reason: string, cause?: unknown): never {
  throw new RequestRefused(rule, reason, { cause });
}

/** The first {@link RequestRefused} in an error's `cause` chain (libraries wrap our callbacks' errors). */
export function refusalIn(err: unknown): RequestRefused | undefined {
  for (let e = err, depth = 0; e && depth < 8; depth++) {
    if (e instanceof RequestRefused) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
