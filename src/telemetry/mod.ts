/**
 * OpenTelemetry through Deno's built-in export (`OTEL_DENO=true` and the standard `OTEL_*`
 * variables): this module names the service's own spans and instruments on the
 * `@opentelemetry/api` globals Deno registers. With telemetry off every call is a no-op.
 *
 * - Spans: `outbox.attempt` for every outbox delivery attempt (webhooks, DIDComm messages, inbound
 *   processing, jobs), linked to the request that queued the message (its W3C `traceparent` rides
 *   in the outbox record); `didcomm.inbound` for every inbound DIDComm message processed.
 * - Metrics: `outbox.deliveries` (counter, by kind and outcome), `outbox.delivery.duration`
 *   (histogram, ms), `outbox.backlog.age` (gauge, s: how overdue the oldest due message is at a
 *   scan), `didcomm.messages` (counter, by direction), `did.cache.lookups` (counter, by result).
 *
 * @module
 */
import {
  type Attributes,
  context,
  type Link,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { Lru } from "../base/mod.ts";

const tracer = trace.getTracer("ssi-edge");
const meter = metrics.getMeter("ssi-edge");

const deliveries = meter.createCounter("outbox.deliveries", {
  description: "Outbox delivery attempts by message kind and outcome",
});
const deliveryDuration = meter.createHistogram("outbox.delivery.duration", {
  description: "Duration of outbox delivery attempts",
  unit: "ms",
});
const backlogAge = meter.createGauge("outbox.backlog.age", {
  description: "How long the oldest due outbox message has been waiting, at the last scan",
  unit: "s",
});
const didcommMessages = meter.createCounter("didcomm.messages", {
  description: "DIDComm messages received (in) and delivered (out)",
});
const didCache = meter.createCounter("did.cache.lookups", {
  description: "DID resolutions answered from the cache (hit) or resolved (miss)",
});

/** The W3C `traceparent` of the active span, to store with work done later; undefined without one. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** A span link to the context of a stored `traceparent`, if it is a valid one. */
function linkTo(traceparent: string | undefined): Link[] {
  if (!traceparent) return [];
  const ctx = propagation.extract(context.active(), { traceparent });
  const sc = trace.getSpanContext(ctx);
  return sc && trace.isSpanContextValid(sc) ? [{ context: sc }] : [];
}

/**
 * Runs `fn` in a span named `name`, linked to the request whose `traceparent` is given; the span
 * ends with `fn` (error status when it throws).
 */
export async function inSpan<T>(
  name: string,
  opts: { attributes?: Attributes; causedBy?: string; kind?: SpanKind },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return await tracer.startActiveSpan(name, {
    kind: opts.kind ?? SpanKind.INTERNAL,
    attributes: opts.attributes,
    links: linkTo(opts.causedBy),
  }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Records one outbox attempt's outcome and duration. */
export function recordDelivery(kind: string, outcome: string, ms: number): void {
  deliveries.add(1, { "outbox.kind": kind, outcome });
  deliveryDuration.record(ms, { "outbox.kind": kind, outcome });
}

/** Records how overdue the oldest due message is (0 when nothing is due). */
export function recordBacklogAge(seconds: number): void {
  backlogAge.record(seconds);
}

/** Counts a DIDComm message received (`in`) or delivered (`out`). */
export function countDidcommMessage(direction: "in" | "out", type: string): void {
  didcommMessages.add(1, { direction, "didcomm.protocol": protocolOf(type) });
}

/** Counts a DID resolution answered from the cache or not. */
export function countDidCacheLookup(hit: boolean, method: string): void {
  // One attributes object per (result, method): this runs on every cached resolution.
  const byMethod = hit ? hitAttrs : missAttrs;
  let attrs = byMethod.get(method);
  if (attrs === undefined) {
    attrs = Object.freeze({ result: hit ? "hit" : "miss", "did.method": method });
    byMethod.set(method, attrs);
  }
  didCache.add(1, attrs);
}
const hitAttrs = new Lru<Readonly<Record<string, string>>>(64);
const missAttrs = new Lru<Readonly<Record<string, string>>>(64);

/** `https://didcomm.org/trust_ping/1.0/ping` → `trust_ping/1.0` (low-cardinality attribute). */
function protocolOf(type: string): string {
  const m = /^(?:https:\/\/didcomm\.org\/|did:sov:[^;]+;spec\/)([^/]+\/[^/]+)/.exec(type);
  return m ? m[1]! : "other";
}
