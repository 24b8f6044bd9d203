/**
 * The holder's HTTP calls to a verifier, all through the service's safe outbound client (address
 * policy, timeout, size cap, no redirects): fetching a request object, posting the answer. A
 * verifier that cannot be reached is 502 ({@link VerifierUnreachable}); an address the outbound
 * policy refuses is the caller's 400.
 *
 * @module
 */
import { AppError, isObject } from "../base/mod.ts";
import { type SafeFetch, SafeFetchError, type SafeResponse } from "../outbound/mod.ts";

const TIMEOUT_MS = 10_000;
/** Request objects and verifier answers are small; a DCQL query with metadata fits easily. */
const MAX_BYTES = 256 * 1024;

/** 502: the verifier could not be reached (or answered with a server error). */
export class VerifierUnreachable extends AppError {
  constructor(message: string) {
    super("verifier_unreachable", 502, message);
  }
}

/** Kinds of {@link SafeFetchError} that mean the address itself is refused by our policy. */
export const POLICY_KINDS = ["invalid_url", "https_required", "blocked_address"];

/** The verifier-facing HTTP client of the holder. */
export class VerifierHttp {
  readonly #fetch: SafeFetch;

  constructor(safeFetch: SafeFetch) {
    this.#fetch = safeFetch;
  }

  /**
   * One call. A policy refusal throws `onPolicy(message)` (the caller names its rule); a verifier
   * that cannot be reached throws {@link VerifierUnreachable}.
   */
  async call(
    what: string,
    url: string,
    init: Parameters<SafeFetch>[1],
    onPolicy: (message: string) => never,
  ): Promise<SafeResponse> {
    try {
      return await this.#fetch(url, { timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, ...init });
    } catch (err) {
      if (err instanceof SafeFetchError) {
        if (POLICY_KINDS.includes(err.kind)) {
          onPolicy(`the address ${url} is not allowed: ${err.message}`);
        }
        throw new VerifierUnreachable(
          `The verifier could not be reached for the ${what} (${url}): ${err.message}`,
        );
      }
      throw err;
    }
  }

  /** POSTs a form; the response as it came (the caller reads the verifier's answer). */
  postForm(
    what: string,
    url: string,
    form: Record<string, string>,
    onPolicy: (message: string) => never,
  ): Promise<SafeResponse> {
    return this.call(what, url, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams(form).toString(),
    }, onPolicy);
  }

  /**
   * A `fetch` for the libraries (`@openid4vc/*` fetch `jwks_uri` or `client_metadata_uri` in rare
   * requests): the same safe client underneath, a `Response` on top.
   */
  asFetch(): typeof fetch {
    return async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((v, k) => headers[k] = v);
      const body = typeof init?.body === "string" ? init.body : undefined;
      const res = await this.call("metadata request", url, {
        method: init?.method ?? "GET",
        headers,
        body,
      }, (m) => {
        throw new Error(m);
      });
      return new Response(res.status === 204 ? null : res.body as Uint8Array<ArrayBuffer>, {
        status: res.status,
        headers: res.headers,
      });
    };
  }
}

/** "invalid_request (the nonce is wrong)" from an OAuth error body, or the status. */
export function describeAnswer(res: SafeResponse): string {
  let body: Record<string, unknown> | undefined;
  try {
    const v = JSON.parse(new TextDecoder().decode(res.body));
    if (isObject(v)) body = v;
  } catch { /* not JSON */ }
  const code = typeof body?.error === "string" ? body.error.slice(0, 100) : undefined;
  const desc = typeof body?.error_description === "string"
    ? body.error_description.slice(0, 300)
    : undefined;
  if (code) return `${code}${desc ? ` (${desc})` : ""} (HTTP ${res.status})`;
  return `HTTP ${res.status}`;
}
