/**
 * The holder's HTTP to an OpenID4VCI issuer: the `fetch` the libraries are given, made over the
 * service's one safe outbound client (address policy, timeout, size cap, no redirects), and what a
 * failed library call means for the caller:
 *
 * - an address the outbound policy refuses is the caller's 400;
 * - an issuer that cannot be reached, or answers with an error, is 502 naming its OAuth `error`
 *   code when it gives one (`invalid_grant` for a spent code or a wrong transaction code);
 * - anything else the libraries refuse is judged by the step: a malformed offer is 400, malformed
 *   issuer metadata 502, a malformed credential answer makes the offer `failed`.
 *
 * @module
 */
import { AppError, badRequest } from "../base/mod.ts";
import { type SafeFetch, SafeFetchError } from "../outbound/mod.ts";
import type { Oid4vcLibraries } from "./library.ts";
import { CredentialRejected } from "../credentials/mod.ts";

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 512 * 1024;
/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** 502: the issuer could not be reached or refused. */
export class IssuerError extends AppError {
  constructor(message: string, readonly oauthError?: string) {
    super("issuer_error", 502, message);
  }
}

/** A `fetch` over the safe client, for the libraries' `callbacks.fetch`. */
export function issuerFetch(safeFetch: SafeFetch): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => headers[k] = v);
    headers.accept ??= "application/json";
    const body = init?.body ?? undefined;
    if (body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array)) {
      throw new TypeError("issuerFetch sends string or byte bodies only");
    }
    const res = await safeFetch(url, {
      method: init?.method ?? "GET",
      headers,
      body,
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_BYTES,
      signal: init?.signal ?? undefined,
    });
    return new Response(NULL_BODY.has(res.status) ? null : res.body as Uint8Array<ArrayBuffer>, {
      status: res.status,
      headers: res.headers,
    });
  };
}

/**
 * A library message for a record or an answer: its first line and the validation points it lists
 * (`✖ …`), with `scrub` (e.g. an offer URI that carries a pre-authorized code) left out, short.
 */
function describe(message: string, scrub?: string): string {
  const text = scrub ? message.split(scrub).join("(the offer)") : message;
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  const points = lines.filter((l) => l.startsWith("✖")).map((l) => l.slice(1).trim());
  const out = points.length ? `${lines[0]}: ${points.join("; ")}` : lines[0] ?? "";
  return out.length > 400 ? `${out.slice(0, 399)}…` : out;
}

/** `invalid_grant (the code was used)` from an OAuth error object. */
function oauthText(e: { error?: unknown; error_description?: unknown }): string {
  const code = String(e.error).slice(0, 100);
  const desc = typeof e.error_description === "string" ? e.error_description.slice(0, 200) : "";
  return desc ? `${code} (${desc})` : code;
}

/** The OAuth error object of a JSON error body, if it is one. */
function oauthBody(text: string | undefined): { error: string } | undefined {
  try {
    const v = JSON.parse(text ?? "");
    return v && typeof v.error === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The `error` of a resource server's `WWW-Authenticate: Bearer error="…"` challenge. */
export function bearerError(res: Response): string | undefined {
  const m = /\berror="?([A-Za-z0-9_.-]{1,100})/.exec(res.headers.get("www-authenticate") ?? "");
  return m?.[1];
}

/** The SafeFetchError a library wrapped (its `cause` chain), if any. */
function safeFetchCause(err: unknown): SafeFetchError | undefined {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 5; e = e.cause, i++) {
    if (e instanceof SafeFetchError) return e;
  }
  return undefined;
}

/** How a step treats what the libraries refuse as malformed. */
export type Malformed = "bad-offer" | "bad-issuer" | "bad-credential";

/**
 * The error to throw for a failed library call in step `what` (e.g. "token"). Our own errors
 * (`AppError`, `CredentialRejected`) pass through unchanged.
 */
export function issuerFailure(
  libs: Oid4vcLibraries,
  err: unknown,
  what: string,
  malformed: Malformed,
  scrub?: string,
): Error {
  if (err instanceof AppError || err instanceof CredentialRejected) return err;
  const refused = safeFetchCause(err);
  if (refused) {
    if (["invalid_url", "https_required", "blocked_address"].includes(refused.kind)) {
      return badRequest(`The ${what} address is not allowed: ${refused.message}`);
    }
    return new IssuerError(`The issuer could not be reached for the ${what}: ${refused.message}`);
  }
  if (err instanceof libs.oauth2.Oauth2ClientErrorResponseError) {
    const code = String(err.errorResponse.error);
    return new IssuerError(
      `The issuer refused the ${what} request: ${oauthText(err.errorResponse)}.`,
      code,
    );
  }
  if (err instanceof libs.vci.Openid4vciRetrieveCredentialsError) {
    const r = err.response as {
      response: Response;
      credentialErrorResponseResult?: { data?: { error?: unknown } };
      deferredCredentialErrorResponseResult?: { data?: { error?: unknown } };
    };
    const body = r.credentialErrorResponseResult?.data ??
      r.deferredCredentialErrorResponseResult?.data;
    if (body?.error !== undefined) {
      return new IssuerError(
        `The issuer refused the ${what} request: ${oauthText(body)}.`,
        String(body.error),
      );
    }
    const challenged = bearerError(r.response);
    if (challenged) {
      return new IssuerError(
        `The issuer refused the ${what} request: ${challenged} (HTTP ${r.response.status}).`,
        challenged,
      );
    }
    if (r.response.ok) {
      return new CredentialRejected(
        `the issuer's ${what} answer is not a valid credential response (${describe(err.message)})`,
      );
    }
    return new IssuerError(
      `The issuer answered the ${what} request with HTTP ${r.response.status}.`,
    );
  }
  if (err instanceof libs.oauth2.InvalidFetchResponseError) {
    const body = oauthBody(err.textResponse);
    if (body) {
      return new IssuerError(
        `The issuer refused the ${what} request: ${oauthText(body)}.`,
        body.error,
      );
    }
    return new IssuerError(
      `The issuer answered the ${what} request with HTTP ${err.response.status}.`,
    );
  }
  const fromLibrary = err instanceof libs.utils.OpenId4VcBaseError ||
    err instanceof libs.oauth2.Oauth2Error || err instanceof libs.vci.Openid4vciError;
  if (!fromLibrary) return err instanceof Error ? err : new Error(String(err));
  switch (malformed) {
    case "bad-offer":
      return badRequest(`The credential offer cannot be used: ${describe(err.message, scrub)}`);
    case "bad-issuer":
      return new IssuerError(`The issuer's ${what} cannot be used: ${describe(err.message)}`);
    case "bad-credential":
      return new CredentialRejected(`the ${what} failed: ${describe(err.message)}`);
  }
}
