/**
 * The holder's HTTP calls to an OpenID4VCI issuer, all through the service's safe outbound client
 * (address policy, timeout, size cap, no redirects). Failures become the two answers the contract
 * gives them: an address the outbound policy refuses is the caller's 400; an issuer that cannot be
 * reached or answers with an error is 502, naming its OAuth `error` code when it gives one.
 *
 * @module
 */
import { AppError, badRequest } from "../errors.ts";
import { type SafeFetch, SafeFetchError, type SafeResponse } from "../outbound/mod.ts";
import { obj } from "./json.ts";

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 512 * 1024;
const decoder = new TextDecoder();

/** 502: the issuer could not be reached or refused. */
export class IssuerError extends AppError {
  constructor(message: string, readonly oauthError?: string) {
    super("issuer_error", 502, message);
  }
}

/** JSON object of a response, or undefined. */
function jsonObject(res: SafeResponse): Record<string, unknown> | undefined {
  try {
    return obj(JSON.parse(decoder.decode(res.body)));
  } catch {
    return undefined;
  }
}

/** "invalid_grant (the code was used)" from an OAuth error body, or the status. */
function describeRefusal(res: SafeResponse): { text: string; code?: string } {
  const body = jsonObject(res);
  const code = typeof body?.error === "string" ? body.error.slice(0, 100) : undefined;
  const desc = typeof body?.error_description === "string"
    ? body.error_description.slice(0, 200)
    : undefined;
  if (code) return { text: `${code}${desc ? ` (${desc})` : ""}`, code };
  return { text: `HTTP ${res.status}` };
}

/** The issuer-facing HTTP client of one holder. */
export class IssuerHttp {
  readonly #fetch: SafeFetch;
  constructor(safeFetch: SafeFetch) {
    this.#fetch = safeFetch;
  }

  async #call(what: string, url: string, init: Parameters<SafeFetch>[1]): Promise<SafeResponse> {
    try {
      return await this.#fetch(url, { timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, ...init });
    } catch (err) {
      if (err instanceof SafeFetchError) {
        if (["invalid_url", "https_required", "blocked_address"].includes(err.kind)) {
          throw badRequest(`The ${what} address ${url} is not allowed: ${err.message}`);
        }
        throw new IssuerError(
          `The issuer could not be reached for the ${what} (${url}): ${err.message}`,
        );
      }
      throw err;
    }
  }

  /** GET a JSON object; `null` for 404 (so callers can try another well-known form). */
  async getJson(what: string, url: string): Promise<Record<string, unknown> | null> {
    const res = await this.#call(what, url, { headers: { accept: "application/json" } });
    if (res.status === 404) return null;
    if (res.status !== 200) {
      throw new IssuerError(
        `The issuer answered the ${what} request with ${describeRefusal(res).text}.`,
      );
    }
    const body = jsonObject(res);
    if (!body) throw new IssuerError(`The issuer's ${what} (${url}) is not a JSON object.`);
    return body;
  }

  /** POST a form or JSON body; the JSON object of a 2xx answer, else an {@link IssuerError}. */
  async post(
    what: string,
    url: string,
    body: { form: Record<string, string> } | { json: unknown },
    headers: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    const isForm = "form" in body;
    const res = await this.#call(what, url, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": isForm ? "application/x-www-form-urlencoded" : "application/json",
        ...headers,
      },
      body: isForm ? new URLSearchParams(body.form).toString() : JSON.stringify(body.json),
    });
    if (res.status < 200 || res.status > 299) {
      const r = describeRefusal(res);
      throw new IssuerError(`The issuer refused the ${what} request: ${r.text}.`, r.code);
    }
    const answer = jsonObject(res);
    if (!answer) throw new IssuerError(`The issuer's ${what} answer is not a JSON object.`);
    return answer;
  }
}
