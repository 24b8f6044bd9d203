import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { STATUS_CODES } from "node:http";
import { AppError, log } from "../base/mod.ts";
import type { AppEnv } from "./env.ts";
import { peerStatusLevel } from "./lite.ts";

/** The HTTP reason phrase of a status. */
export function reason(status: number): string {
  return STATUS_CODES[status] ?? "Error";
}

/** The error envelope of CONTRACT.md: `{statusCode, error, message, details?}`. */
export function errorBody(
  status: number,
  message: string,
  details?: { path: string; message: string }[],
) {
  return {
    statusCode: status,
    error: reason(status),
    message,
    ...(details && details.length ? { details } : {}),
  };
}

/** Writes the envelope for an error response. */
export function errorResponse(
  c: Context<AppEnv>,
  status: number,
  message: string,
  opts: { details?: { path: string; message: string }[]; headers?: Record<string, string> } = {},
): Response {
  for (const [k, v] of Object.entries(opts.headers ?? {})) c.header(k, v);
  return c.json(errorBody(status, message, opts.details), status as 400);
}

/** Logs a 5xx AppError with its cause (502/504: a peer's failure, warn; else error). */
function logServerError(err: AppError, requestId: string | undefined, path: string): void {
  if (err.status >= 500) {
    log(peerStatusLevel(err.status), err.message, {
      requestId,
      code: err.code,
      cause: err.cause,
      path,
    });
  }
}

/**
 * An AppError's envelope as a Response, for answers written outside the router (the DID door),
 * logged as `onError` logs it.
 */
export function appErrorResponse(err: AppError, requestId: string, path: string): Response {
  logServerError(err, requestId, path);
  return new Response(JSON.stringify(errorBody(err.status, err.message, err.details)), {
    status: err.status,
    headers: { "content-type": "application/json", ...err.headers },
  });
}

/** The one onError: AppError → its envelope; Hono's HTTP errors → theirs; anything else → 500 with nothing internal. */
export function onError(err: Error, c: Context<AppEnv>): Response {
  const requestId = c.get("requestId");
  if (err instanceof AppError) {
    logServerError(err, requestId, c.req.path);
    return errorResponse(c, err.status, err.message, {
      details: err.details,
      headers: err.headers,
    });
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    let message = err.message || reason(status);
    if (status === 400 && /json/i.test(message)) message = "The request body is not valid JSON.";
    if (status === 413) message = "The request body is larger than the limit of 1 MiB.";
    return errorResponse(c, status, message);
  }
  log("error", "unhandled error", {
    requestId,
    path: c.req.path,
    method: c.req.method,
    error: err,
    stack: err.stack,
  });
  return errorResponse(
    c,
    500,
    "Something went wrong on our side. The request id identifies it in our logs.",
  );
}
