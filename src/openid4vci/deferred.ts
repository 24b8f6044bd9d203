/**
 * Deferred issuance (OpenID4VCI `transaction_id`): an offer in state `deferred` is polled at the
 * deferred credential endpoint by a chain of outbox messages of kind {@link DEFERRED_KIND}, one at
 * a time, each committed with the offer's change, so a restart loses nothing and two processes
 * never poll twice: the offer names the message that polls next (`deferred.jobId`), any other is
 * stale and ends.
 *
 * One poll asks for every credential still to come:
 * - credentials arrive → verified (`receipt.ts`) and stored; all arrived → `done`;
 * - still pending (`202` with `transaction_id`, or the drafts' `issuance_pending`) → the next poll
 *   after the issuer's `interval` (within [{@link MIN_INTERVAL_S}, {@link MAX_INTERVAL_S}] s);
 * - the access token expired (401) → renewed once with the refresh token, when the issuer gave
 *   one, and the poll asked again;
 * - the issuer says it will not (an OAuth error: `credential_request_denied`,
 *   `invalid_transaction_id`, an expired token it gave no way to renew …), or a credential fails
 *   verification → `failed`;
 * - the issuer cannot be reached → the message is retried on its schedule; when that ends, `failed`;
 * - still pending after {@link GIVE_UP_MS} → `failed`.
 *
 * @module
 */
import { atomicUpdate, uuidv7 } from "../kv/mod.ts";
import { enqueue, type HandlerResult, type OutboxHandler } from "../outbox/mod.ts";
import { IssuerError } from "./issuer_fetch.ts";
import {
  clampInterval,
  type DeferredDeps,
  pollDeferred,
  type PollOutcome,
  withTokens,
} from "./deferred_poll.ts";
import { offeredTypes } from "./ldp_receipt.ts";
import { addReceipt, type Receipt, receiptIds, verifyReceipt } from "./receipt.ts";
import type { DeferredState, StoredOffer } from "./record.ts";
import { CredentialRejected } from "../credentials/mod.ts";
import { addOfferUpdate, readOffer } from "./store.ts";

export { clampInterval, type DeferredDeps };

/** No credentials to store. */
const NOTHING: Receipt = { orgId: "", credentials: [], statuses: new Map() };

/** Outbox kind of a poll. */
export const DEFERRED_KIND = "oid4vci.deferred";
/** How long a deferred issuance is polled before the offer is `failed`: 30 days. */
export const GIVE_UP_MS = 30 * 24 * 3_600_000;
/** Retries of one poll whose issuer cannot be reached (then the offer is `failed`). */
const UNREACHABLE_SCHEDULE = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];

/** The payload of a poll message. */
export interface DeferredJob {
  orgId: string;
  offerId: string;
}

/** Adds the next poll of an offer to `op`, due in `intervalS`; its message id. */
export function addPoll(
  op: Deno.AtomicOperation,
  orgId: string,
  offerId: string,
  intervalS: number,
  now: number,
): string {
  const id = uuidv7(now);
  enqueue<DeferredJob>(op, {
    id,
    kind: DEFERRED_KIND,
    orgId,
    payload: { orgId, offerId },
    delayMs: intervalS * 1000,
  }, now);
  return id;
}

/** The outbox handler that polls deferred issuance. */
export function deferredHandler(deps: DeferredDeps): OutboxHandler<DeferredJob> {
  /**
   * Commits the offer's next state (with stored credentials and the next poll). A lost race reads
   * the offer again: when it has moved on meanwhile (or another poll owns it), this poll's news is
   * stale and nothing is written.
   */
  const commit = async (
    entry: Deno.KvEntry<StoredOffer>,
    change: Partial<StoredOffer["record"]>,
    receipt: Receipt,
    deferred: DeferredState | undefined,
  ) => {
    const { orgId, id } = entry.value.record;
    const jobId = entry.value.deferred?.jobId;
    await atomicUpdate(deps.kv, async (op, attempt) => {
      const fresh = attempt === 0 ? entry : await readOffer(deps.kv, orgId, id);
      const cur = fresh?.value;
      if (!fresh || cur?.record.state !== "deferred" || cur.deferred?.jobId !== jobId) return;
      const now = deps.now();
      const next: StoredOffer = {
        ...cur,
        record: { ...cur.record, ...change, updatedAt: new Date(now).toISOString() },
        deferred,
      };
      if (deferred) deferred.jobId = addPoll(op, orgId, id, deferred.intervalS, now);
      addOfferUpdate(op, fresh, next, now);
      addReceipt(op, deps.credentials, receipt);
    }, { conflict: () => new Error(`Credential offer "${id}" kept changing during a poll.`) });
    deps.dispatcher.wake();
  };

  return {
    schedule: UNREACHABLE_SCHEDULE,
    async handle(msg): Promise<HandlerResult> {
      const { orgId, offerId } = msg.payload;
      const entry = await readOffer(deps.kv, orgId, offerId);
      const d = entry?.value.deferred;
      if (!entry || entry.value.record.state !== "deferred" || !d || d.jobId !== msg.id) {
        return { ok: true }; // stale: the offer moved on, or another message polls it
      }
      let outcome: PollOutcome;
      try {
        outcome = await pollDeferred(deps, entry.value, d);
      } catch (err) {
        if (err instanceof IssuerError) return { ok: false, error: err.message };
        throw err;
      }
      if (outcome.kind === "failed") {
        await commit(entry, { state: "failed", errorMessage: outcome.message }, NOTHING, undefined);
        return { ok: true };
      }
      const rec = entry.value.record;
      let receipt: Receipt;
      try {
        receipt = await verifyReceipt(deps, {
          orgId,
          offerId,
          credentialIssuer: rec.credentialIssuer,
          expectedVct: (c) => vctOf(entry.value, c),
          expectedTypes: (c) => typesOf(entry.value, c),
        }, outcome.issued);
      } catch (err) {
        if (!(err instanceof CredentialRejected)) throw err;
        await commit(entry, { state: "failed", errorMessage: err.message }, NOTHING, undefined);
        return { ok: true };
      }
      const credentialIds = [...rec.credentialIds, ...receiptIds(receipt)];
      if (outcome.pending.length === 0) {
        await commit(entry, { state: "done", credentialIds }, receipt, undefined);
      } else if (deps.now() >= d.until) {
        await commit(
          entry,
          {
            state: "failed",
            credentialIds,
            errorMessage: `The issuer did not deliver the deferred credential within ${
              GIVE_UP_MS / 86_400_000
            } days.`,
          },
          receipt,
          undefined,
        );
      } else {
        await commit(entry, { credentialIds }, receipt, {
          ...await withTokens(deps, entry.value, d, outcome.tokens),
          transactions: outcome.pending,
          intervalS: outcome.intervalS,
        });
      }
      return { ok: true };
    },
    async onDead(msg, op, now) {
      const entry = await readOffer(deps.kv, msg.payload.orgId, msg.payload.offerId);
      if (entry?.value.record.state !== "deferred" || entry.value.deferred?.jobId !== msg.id) {
        return;
      }
      const next: StoredOffer = {
        ...entry.value,
        record: {
          ...entry.value.record,
          state: "failed",
          errorMessage: `The issuer could not be reached for the deferred credential: ${
            msg.lastError ?? "no answer"
          }`,
          updatedAt: new Date(now).toISOString(),
        },
        deferred: undefined,
      };
      addOfferUpdate(op, entry, next, now);
    },
  };
}

/** The `vct` the issuer published for a configuration, if any. */
export function vctOf(stored: StoredOffer, configurationId: string): string | undefined {
  const c = stored.metadata?.credentialIssuer.credential_configurations_supported[configurationId];
  return typeof c?.vct === "string" ? c.vct : undefined;
}

/** The types an `ldp_vc` configuration of the offer promised, when it names them. */
export function typesOf(stored: StoredOffer, configurationId: string): string[] | undefined {
  return offeredTypes(
    stored.metadata?.credentialIssuer.credential_configurations_supported[configurationId] as
      | Record<string, unknown>
      | undefined,
  );
}
