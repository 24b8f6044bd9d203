/**
 * Structured JSON logs, one line per event. Secrets never reach this module's output. Which level a
 * request's line gets is the HTTP layer's rule (`http/lite.ts`).
 */

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
