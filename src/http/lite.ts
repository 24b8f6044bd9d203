/**
 * The light entry of `http/`: request ids and request log lines, the rules every answer follows,
 * whoever writes it (the app's middleware, the DID routes' pipeline). Plain functions over
 * `base/`, free of the router, jose and zod (`mod.ts`), so that code loaded before the app (the
 * DID early lane) may use them.
 *
 * @module
 */
import { log, logEnabled, type LogLevel } from "../base/mod.ts";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when sane, else a new UUID. */
export function requestIdFrom(given: string | null | undefined): string {
  return given && SAFE_ID.test(given) ? given : crypto.randomUUID();
}

/**
 * The level of a request's log line: 5xx error, but warn when a peer failed (502/504, or `peer`: a
 * 500 that reports a peer's failure, e.g. a DID host's) and 501 info (a DID method we do not
 * support: the caller's choice, not our failure); 4xx info; else debug.
 */
export function requestLevel(status: number, peer = false): LogLevel {
  return status >= 500 && status !== 501
    ? (peer ? "warn" : peerStatusLevel(status))
    : status >= 400
    ? "info"
    : "debug";
}

/**
 * The level for a 5xx answer: warn for 502 and 504 (a peer — an issuer, a DID host, an upstream
 * resolver — failed or refused, e.g. a wrong transaction code), error for the rest (ours).
 */
export function peerStatusLevel(status: number): "warn" | "error" {
  return status === 502 || status === 504 ? "warn" : "error";
}

/** Whether a request answered with `status` gets a log line at the current level. */
export function requestLogged(status: number, peer = false): boolean {
  return logEnabled(requestLevel(status, peer));
}

/**
 * A request's log line (see `requestLevel`); `t0` is when it started (`performance.now()`),
 * undefined for an answer taken straight from a cache (logged as 0 ms); `peer`: the answer
 * reports a peer's failure.
 */
export function logRequest(
  id: string,
  method: string,
  path: string,
  status: number,
  t0?: number,
  peer = false,
): void {
  const level = requestLevel(status, peer);
  if (logEnabled(level)) {
    log(level, "request", {
      requestId: id,
      method,
      path,
      status,
      ms: t0 === undefined ? 0 : Math.round((performance.now() - t0) * 10) / 10,
    });
  }
}
