/**
 * The light entry of `http/`: request ids and the access log, the rules every answer follows,
 * whoever writes it (the app's middleware, the DID routes' pipeline). Plain functions over
 * `base/`, free of the router, jose and zod (`mod.ts`), so that code loaded before the app (the
 * DID early lane) may use them.
 *
 * The access log (CONTRACT "Operations"): one JSON line per request, `{time, level, msg:
 * "request", requestId, method, route, status, ms, orgId?}`. `route` is the pattern the request
 * matched (`/orgs/{orgId}/connections/{id}`, `/dids/{did}`; null when none did), never the path,
 * which names DIDs and record ids. `LOG_REQUESTS=errors` keeps only the lines of 4xx and 5xx.
 *
 * A line costs a warm DID answer little: it is written as text (no object walked for secrets:
 * every field is ours), and lines at `info` are written to stdout in batches, one write per
 * {@link FLUSH_MS} or {@link BATCH_LINES} lines and at exit, because one `console.log` call costs
 * some 6–10 µs, as much as the answer itself (tests/bench/README.md). Where the console is what
 * collects logs (Deno Deploy, `OTEL_DENO=true`: each call becomes a log record tied to the
 * request's trace) every line is its own `console.log` call instead (`setRequestLog`).
 *
 * @module
 */
import { log, logEnabled, type LogLevel } from "../base/mod.ts";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when sane, else a new UUID. */
export function requestIdFrom(given: string | null | undefined): string {
  return given && SAFE_ID.test(given) ? given : crypto.randomUUID();
}

/** `LOG_REQUESTS`: `all` requests get an access line, or only `errors` (4xx and 5xx). */
export type RequestLogging = "all" | "errors";

/**
 * Where access lines at `info` go: `batched` stdout writes, or one `console.log` call each
 * (`console`: where the console is what collects logs).
 */
export type RequestLogSink = "batched" | "console";

/** How long an access line may wait for its batch. */
export const FLUSH_MS = 50;
/** A batch is written at once when it has this many lines. */
export const BATCH_LINES = 256;

let logging: RequestLogging = "all";
let sink: RequestLogSink = "console";
let pending: string[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
const encoder = new TextEncoder();

/** Sets which requests get an access line and where the lines go (`main.ts`, from the config). */
export function setRequestLog(options: { logging: RequestLogging; sink: RequestLogSink }): void {
  flushRequestLog();
  logging = options.logging;
  sink = options.sink;
}

/**
 * The level of a request's line: 5xx error, but warn when a peer failed (502/504, or `peer`: a
 * 500 that reports a peer's failure, e.g. a DID host's) and 501 info (a DID method we do not
 * support: the caller's choice, not our failure); everything else info.
 */
export function requestLevel(status: number, peer = false): LogLevel {
  return status >= 500 && status !== 501 ? (peer ? "warn" : peerStatusLevel(status)) : "info";
}

/**
 * The level for a 5xx answer: warn for 502 and 504 (a peer — an issuer, a DID host, an upstream
 * resolver — failed or refused, e.g. a wrong transaction code), error for the rest (ours).
 */
export function peerStatusLevel(status: number): "warn" | "error" {
  return status === 502 || status === 504 ? "warn" : "error";
}

/** Whether a request answered with `status` gets an access line (`LOG_REQUESTS`, `LOG_LEVEL`). */
export function requestLogged(status: number, peer = false): boolean {
  if (status < 400 && logging === "errors") return false;
  return logEnabled(requestLevel(status, peer));
}

/**
 * A request's access line, when {@link requestLogged}. `route`: the pattern it matched (null:
 * none); `t0`: when it started (`performance.now()`), undefined for an answer taken straight from
 * a cache (logged as 0 ms); `peer`: the answer reports a peer's failure; `orgId`: the org the
 * request acted on, when known.
 */
export function logRequest(
  id: string,
  method: string,
  route: string | null,
  status: number,
  t0?: number,
  peer = false,
  orgId?: string,
): void {
  if (!requestLogged(status, peer)) return;
  const ms = t0 === undefined ? 0 : Math.round((performance.now() - t0) * 10) / 10;
  const level = requestLevel(status, peer);
  if (level !== "info") {
    log(level, "request", { requestId: id, method, route, status, ms, ...(orgId && { orgId }) });
    return;
  }
  // The same line `log` writes, made as text: the request id is a safe id or a UUID, the route
  // one of ours or null; the method and org id are quoted by JSON.
  const line = `{"time":"${isoNow()}","level":"info","msg":"request",` +
    `"requestId":"${id}","method":${JSON.stringify(method)},` +
    `"route":${route === null ? "null" : JSON.stringify(route)},"status":${status},"ms":${ms}` +
    (orgId ? `,"orgId":${JSON.stringify(orgId)}}` : "}");
  if (sink === "console") {
    console.log(line);
    return;
  }
  pending.push(line);
  if (pending.length >= BATCH_LINES) flushRequestLog();
  else if (timer === undefined) {
    timer = setTimeout(flushRequestLog, FLUSH_MS);
    Deno.unrefTimer(timer);
  }
}

let second = -1;
let secondIso = "";

/**
 * `new Date().toISOString()`, made once a second and completed with the milliseconds: the whole
 * call costs some 1.5 µs, most of a line's cost.
 */
function isoNow(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== second) {
    second = s;
    secondIso = new Date(s * 1000).toISOString().slice(0, 20); // "2026-11-28T01:38:37."
  }
  const ms = now - s * 1000;
  return `${secondIso}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
}

/** Writes the access lines waiting for their batch (also at exit). */
export function flushRequestLog(): void {
  if (timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (pending.length === 0) return;
  const bytes = encoder.encode(pending.join("\n") + "\n");
  pending = [];
  try {
    for (let off = 0; off < bytes.length;) off += Deno.stdout.writeSync(bytes.subarray(off));
  } catch {
    // stdout closed: the lines have nowhere to go.
  }
}

globalThis.addEventListener("unload", flushRequestLog);
