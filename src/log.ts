/** Structured JSON logs, one line per event. Secrets never reach this module's output. */

export type LogLevel = "debug" | "info" | "warn" | "error";
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const SECRET_KEYS =
  /^(apikey|api_key|secret|secrets_key|password|token|authorization|privatekey|private_key|d|secretkey|x-api-key)$/i;

let minLevel: LogLevel = "info";

/** Sets the minimum level written. */
export function setLogLevel(level: LogLevel): void {
  minLevel = level;
}

/** True when `level` would be written. */
export function logEnabled(level: LogLevel): boolean {
  return order[level] >= order[minLevel];
}

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEYS.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

/** Writes one JSON log line: `{time, level, msg, ...fields}`; fields named like secrets are redacted. */
export function log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (order[level] < order[minLevel]) return;
  const line = JSON.stringify({
    time: new Date().toISOString(),
    level,
    msg,
    ...(redact(fields) as Record<string, unknown>),
  });
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when sane, else a new UUID. */
export function requestIdFrom(given: string | null | undefined): string {
  return given && SAFE_ID.test(given) ? given : crypto.randomUUID();
}

/**
 * The level of a request's log line: 5xx error, but 502/504 warn (`peerStatusLevel`) and 501 info
 * (a DID method we do not support: the caller's choice, not our failure); 4xx info; else debug.
 */
function requestLevel(status: number): LogLevel {
  return status >= 500 && status !== 501
    ? peerStatusLevel(status)
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
function requestLogged(status: number): boolean {
  return logEnabled(requestLevel(status));
}

/**
 * A request's log line (see `requestLevel`); `t0` is when it started (`performance.now()`),
 * undefined for an answer taken straight from a cache (logged as 0 ms).
 */
export function logRequest(
  id: string,
  method: string,
  path: string,
  status: number,
  t0?: number,
): void {
  const level = requestLevel(status);
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

/**
 * Request id and log line of an answer a fast lane made (`GET /dids/{did}` and the early lane):
 * a caller that sent `x-request-id` always gets one back (its own when sane, else a new one); a
 * new id is made only when the request's log line is written (an id that names no log line finds
 * nothing, and attaching a header costs a warm answer about a microsecond, some 6 % of it). Every
 * other response carries an id always (`http/request_id.ts`). `pathStart`: where the URL's path
 * starts; `t0`: when the work began, undefined for an answer straight from a cache (0 ms).
 */
export function finishFastAnswer(
  res: Response,
  given: string | null,
  url: string,
  pathStart: number,
  t0?: number,
): Response {
  const logged = requestLogged(res.status);
  if (given === null && !logged) return res;
  const id = requestIdFrom(given);
  res.headers.set("x-request-id", id);
  if (logged) logRequest(id, "GET", url.slice(pathStart), res.status, t0);
  return res;
}
