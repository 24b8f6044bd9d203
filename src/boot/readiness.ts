/**
 * Readiness (`GET /health/ready`): the service takes work when it is not shutting down, its KV
 * database answers a read, and (where this process runs one) its dispatcher loop is alive. A probe
 * only reads: nothing is written per probe.
 *
 * @module
 */
import type { Services } from "../compose.ts";
import { AppError } from "../base/mod.ts";
import { keys } from "../kv/mod.ts";

/** What a ready answer reports. */
export interface ReadyReport {
  status: "ready";
  /** Time of the KV read, ms. */
  kvMs: number;
  dispatcher: { running: boolean; inflight: number; lastScanAgeMs: number | null };
}

/** How the process stands: set by `main.ts` (tests use the defaults). */
export interface ProcessState {
  /** True from the shutdown signal on. */
  draining(): boolean;
  /** True when this process runs the dispatcher loop (then it must be alive). */
  dispatcherExpected: boolean;
}

/** A loop that has not finished a scan for this long is taken for stuck. */
const STALE_SCAN_MS = 60_000;

/** The readiness check of `services` under `state`: resolves with the report or throws a 503. */
export function readinessCheck(
  services: Pick<Services, "kv" | "dispatcher" | "now">,
  state: ProcessState = { draining: () => false, dispatcherExpected: false },
): () => Promise<ReadyReport> {
  const notReady = (message: string, cause?: unknown) =>
    new AppError("not_ready", 503, message, { cause, headers: { "retry-after": "5" } });
  return async () => {
    if (state.draining()) throw notReady("The service is shutting down.");
    const t0 = performance.now();
    try {
      await services.kv.get(keys.healthProbe());
    } catch (err) {
      throw notReady("The database is not reachable.", err);
    }
    const kvMs = Math.round((performance.now() - t0) * 100) / 100;
    const d = services.dispatcher.state();
    const lastScanAgeMs = d.lastScanAt === null ? null : services.now() - d.lastScanAt;
    // A signal may have come during the KV read: draining stops the dispatcher, and the probe
    // must then say that the service is shutting down, not that its dispatcher died.
    if (state.draining()) throw notReady("The service is shutting down.");
    if (state.dispatcherExpected) {
      if (!d.running) throw notReady("The outbox dispatcher is not running.");
      if (lastScanAgeMs !== null && lastScanAgeMs > STALE_SCAN_MS) {
        throw notReady(`The outbox dispatcher has not scanned for ${lastScanAgeMs} ms.`);
      }
    }
    return {
      status: "ready",
      kvMs,
      dispatcher: { running: d.running, inflight: d.inflight, lastScanAgeMs },
    };
  };
}
