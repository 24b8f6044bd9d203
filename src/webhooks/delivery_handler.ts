/**
 * The outbox handler that delivers webhook events (Standard Webhooks requests).
 *
 * @module
 */
import type { SecretBox } from "../crypto/mod.ts";
import { atomicUpdate, keys } from "../kv/mod.ts";
import { log } from "../base/mod.ts";
import type { HandlerResult, OutboxHandler, OutboxMessage } from "../outbox/mod.ts";
import { type SafeFetch, SafeFetchError } from "../outbound/mod.ts";
import { liveSecrets, SigningKeyCache, type WebhookEndpoint } from "./endpoint.ts";
import type { WebhookEvent } from "./events.ts";
import { signWebhook } from "./signature.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;

/** Delays before retries 1..7 (CONTRACT.md): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then dead. */
export const WEBHOOK_SCHEDULE: readonly number[] = [
  5 * S,
  5 * M,
  30 * M,
  2 * H,
  5 * H,
  10 * H,
  10 * H,
];

/** Time limit of one delivery attempt. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** Response bodies are read up to this size and ignored. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** What the delivery handler uses. */
export interface WebhookHandlerDeps {
  kv: Deno.Kv;
  secrets: SecretBox;
  safeFetch: SafeFetch;
  now: () => number;
}

/** Options of the delivery handler. */
export interface WebhookHandlerOptions {
  /** Retry delays; tests may shorten them. Default `WEBHOOK_SCHEDULE`. */
  schedule?: readonly number[];
  /** Per-attempt timeout; default 15 s. */
  timeoutMs?: number;
}

/**
 * The outbox handler of kind "webhook": POSTs the event as a Standard Webhooks request to the
 * org's endpoint as registered at delivery time.
 *
 * - 2xx: delivered. 3xx (never followed) and everything else: failed, retried on the schedule.
 * - 410: the endpoint is disabled until registered again, and the delivery is dead at once.
 * - 429 / 503 with `Retry-After`: the next attempt waits that long, within the schedule's bounds.
 * - No endpoint, or a disabled one: the delivery succeeds without a request ("skipped": an
 *   attempt with `ok: true` and no status), so orgs without webhooks collect no dead letters.
 * - The address is checked against the outbound policy at every attempt (safeFetch).
 */
export function createWebhookHandler(
  deps: WebhookHandlerDeps,
  opts: WebhookHandlerOptions = {},
): OutboxHandler<WebhookEvent> {
  const keyCache = new SigningKeyCache(deps.secrets);
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return {
    schedule: opts.schedule ?? WEBHOOK_SCHEDULE,
    async handle(msg: OutboxMessage<WebhookEvent>, { signal }): Promise<HandlerResult> {
      const event = msg.payload;
      const orgId = msg.orgId ?? event.orgId;
      const entry = await deps.kv.get<WebhookEndpoint>(keys.webhook(orgId));
      const ep = entry.value;
      if (!ep || ep.disabledAt) {
        log("debug", "webhook delivery skipped", {
          id: msg.id,
          orgId,
          reason: ep ? "endpoint disabled" : "no endpoint registered",
        });
        return { ok: true };
      }
      const now = deps.now();
      const secrets = liveSecrets(ep, now);
      const body = JSON.stringify(event);
      const timestamp = Math.floor(now / 1000);
      const signature = await signWebhook(
        await keyCache.keysFor(orgId, secrets),
        event.id,
        timestamp,
        body,
      );
      let status: number;
      let headers: Headers;
      try {
        const res = await deps.safeFetch(ep.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": "ssi-edge-webhooks/1",
            "webhook-id": event.id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signature,
          },
          body,
          timeoutMs,
          maxBytes: MAX_RESPONSE_BYTES,
          signal,
        });
        status = res.status;
        headers = res.headers;
      } catch (err) {
        if (err instanceof SafeFetchError) {
          // A 2xx whose body is merely too large is still a delivery.
          if (err.kind === "too_large" && err.status !== undefined && isSuccess(err.status)) {
            return { ok: true, status: err.status };
          }
          return { ok: false, error: err.message, status: err.status };
        }
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
      if (isSuccess(status)) return { ok: true, status };
      if (status === 410) {
        await disable(deps, entry as Deno.KvEntry<WebhookEndpoint>, now);
        return {
          ok: false,
          status,
          final: true,
          error:
            "The endpoint answered 410 Gone; it is disabled until the webhook is registered again.",
        };
      }
      const result: HandlerResult = {
        ok: false,
        status,
        error: `The endpoint answered ${status}; only 2xx counts as delivered.`,
      };
      if (status === 429 || status === 503) {
        const retryAfterMs = parseRetryAfter(headers.get("retry-after"), now);
        if (retryAfterMs !== undefined) return { ...result, retryAfterMs };
      }
      return result;
    },
  };
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * Marks the endpoint disabled unless it was registered again (or its secret rotated) meanwhile:
 * a lost race reads it again, and only the registration that answered 410 is disabled.
 */
async function disable(
  deps: WebhookHandlerDeps,
  entry: Deno.KvEntry<WebhookEndpoint>,
  now: number,
): Promise<void> {
  const at = new Date(now).toISOString();
  const disabled = await atomicUpdate(deps.kv, async (op, attempt) => {
    const cur = attempt === 0 ? entry : await deps.kv.get<WebhookEndpoint>(entry.key);
    if (!cur.value || cur.value.updatedAt !== entry.value.updatedAt) return false;
    const next: WebhookEndpoint = {
      ...cur.value,
      disabledAt: at,
      disabledReason: "The endpoint answered 410 Gone.",
    };
    op.check(cur).set(cur.key, next);
    return true;
  });
  if (disabled) {
    log("warn", "webhook endpoint disabled after 410 Gone", { orgId: entry.value.orgId });
  }
}

/** `Retry-After`: delay-seconds or an HTTP date; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
