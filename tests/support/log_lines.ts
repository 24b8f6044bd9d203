/** The service's log lines, captured in-process while a test runs something. */
import { type RequestLogging, setRequestLog } from "../../src/http/lite.ts";
import { type LogLevel, setLogLevel } from "../../src/base/log.ts";

/** One JSON log line. */
export type LogLine = Record<string, unknown>;

/**
 * The log lines (stdout and stderr, parsed) written while `fn` runs at `level` (default `info`)
 * with `LOG_REQUESTS=logging` (default `all`), access lines one `console.log` call each; then the
 * tests' defaults again (`error`, `all`).
 */
export async function logLinesOf(
  fn: () => unknown,
  opts: { level?: LogLevel; logging?: RequestLogging } = {},
): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  const orig = { log: console.log, error: console.error };
  console.log = console.error = (line: string) => lines.push(JSON.parse(line));
  setLogLevel(opts.level ?? "info");
  setRequestLog({ logging: opts.logging ?? "all", sink: "console" });
  try {
    await fn();
  } finally {
    console.log = orig.log;
    console.error = orig.error;
    setLogLevel("error");
    setRequestLog({ logging: "all", sink: "console" });
  }
  return lines;
}
