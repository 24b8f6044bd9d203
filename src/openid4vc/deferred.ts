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
 * - the issuer says it will not (an OAuth error: `credential_request_denied`,
 *   `invalid_transaction_id`, an expired token …), or a credential fails verification → `failed`;
 * - the issuer cannot be reached → the message is retried on its schedule; when that ends, `failed`;
 * - still pending after {@link GIVE_UP_MS} → `failed`.
 *
 * @module
 */
import type { SecretBox } from "../crypto/mod.ts";
import type { DidResolver } from "../did/mod.ts";
import { AppError } from "../errors.ts";
import { commitOrConflict, uuidv7 } from "../kv/mod.ts";
import type { SafeFetch } from "../outbound/mod.ts";
import { type Dispatcher, enqueue, type HandlerResult, type OutboxHandler } from "../outbox/mod.ts";
import { issuerClient } from "./client.ts";
import type { Deferral, IssuedCredential } from "./issuance.ts";
import { compactsOf } from "./issuance.ts";
import { IssuerError, issuerFailure } from "./issuer_fetch.ts";
import { loadOid4vcLibraries } from "./library.ts";
import { verifyReceipt } from "./receipt.ts";
import {
  type DeferredState,
  offerTokenAad,
  type SdJwtCredentialRecord,
  type StoredOffer,
} from "./record.ts";
import { CredentialRejected } from "./sd_jwt.ts";
import { addCredential, addOfferUpdate, readOffer } from "./store.ts";

/** Outbox kind of a poll. */
export const DEFERRED_KIND = "oid4vci.deferred";
/** Bounds of the wait between polls, in seconds. */
export const MIN_INTERVAL_S = 1;
export const MAX_INTERVAL_S = 24 * 3600;
/** How long a deferred issuance is polled before the offer is `failed`: 30 days. */
export const GIVE_UP_MS = 30 * 24 * 3_600_000;
/** Retries of one poll whose issuer cannot be reached (then the offer is `failed`). */
const UNREACHABLE_SCHEDULE = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];

/** The payload of a poll message. */
export interface DeferredJob {
  orgId: string;
  offerId: string;
}

/** The issuer's interval within bounds. */
export const clampInterval = (s: number | undefined) =>
  Math.min(MAX_INTERVAL_S, Math.max(MIN_INTERVAL_S, Math.ceil(s ?? MIN_INTERVAL_S)));

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

/** What the poller uses. */
export interface DeferredDeps {
  kv: Deno.Kv;
  secrets: SecretBox;
  safeFetch: SafeFetch;
  resolver: DidResolver;
  dispatcher: Dispatcher;
  now: () => number;
}

type Outcome =
  | { kind: "arrived"; issued: IssuedCredential[]; pending: Deferral[]; intervalS: number }
  | { kind: "failed"; message: string };

/** The outbox handler that polls deferred issuance. */
export function deferredHandler(deps: DeferredDeps): OutboxHandler<DeferredJob> {
  /** Commits the offer's next state (with stored credentials and the next poll). */
  const commit = async (
    entry: Deno.KvEntry<StoredOffer>,
    change: Partial<StoredOffer["record"]>,
    credentials: SdJwtCredentialRecord[],
    deferred: DeferredState | undefined,
  ) => {
    const now = deps.now();
    const cur = entry.value;
    const next: StoredOffer = {
      ...cur,
      record: { ...cur.record, ...change, updatedAt: new Date(now).toISOString() },
      deferred,
    };
    const op = deps.kv.atomic();
    if (deferred) {
      deferred.jobId = addPoll(op, cur.record.orgId, cur.record.id, deferred.intervalS, now);
    }
    addOfferUpdate(op, entry, next, now);
    for (const c of credentials) addCredential(op, c);
    await commitOrConflict(op, `Credential offer "${cur.record.id}" changed during a poll.`);
    deps.dispatcher.wake();
  };

  /** Asks for every credential still to come. */
  const poll = async (stored: StoredOffer, d: DeferredState): Promise<Outcome> => {
    const libs = await loadOid4vcLibraries();
    const client = issuerClient(libs, deps.safeFetch);
    const { orgId, id } = stored.record;
    const accessToken = await deps.secrets.openString(
      d.sealedAccessToken,
      offerTokenAad(orgId, id),
    );
    const issued: IssuedCredential[] = [];
    const pending: Deferral[] = [];
    let intervalS = d.intervalS;
    for (const t of d.transactions) {
      try {
        const { deferredCredentialResponse: answer } = await client.retrieveDeferredCredentials({
          issuerMetadata: stored.metadata!,
          accessToken,
          transactionId: t.transactionId,
        });
        if (answer.transaction_id !== undefined) {
          pending.push(t);
          intervalS = clampInterval(answer.interval);
          continue;
        }
        const compacts = compactsOf(answer);
        if (compacts.length === 0) {
          return { kind: "failed", message: "The issuer's deferred answer holds no credential." };
        }
        for (const compact of compacts) issued.push({ ...t, compact });
      } catch (err) {
        const e = issuerFailure(libs, err, "deferred credential", "bad-credential");
        if (e instanceof IssuerError && e.oauthError === "issuance_pending") {
          pending.push(t);
          continue;
        }
        if (e instanceof IssuerError && e.oauthError === undefined) throw e; // unreachable: retry
        if (e instanceof AppError || e instanceof CredentialRejected) {
          return {
            kind: "failed",
            message: `The issuer did not deliver the deferred credential: ${e.message}`,
          };
        }
        throw e;
      }
    }
    return { kind: "arrived", issued, pending, intervalS };
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
      let outcome: Outcome;
      try {
        outcome = await poll(entry.value, d);
      } catch (err) {
        if (err instanceof IssuerError) return { ok: false, error: err.message };
        throw err;
      }
      if (outcome.kind === "failed") {
        await commit(entry, { state: "failed", errorMessage: outcome.message }, [], undefined);
        return { ok: true };
      }
      const rec = entry.value.record;
      let records: SdJwtCredentialRecord[] = [];
      try {
        records = await verifyReceipt(deps, {
          orgId,
          offerId,
          credentialIssuer: rec.credentialIssuer,
          expectedVct: (c) => vctOf(entry.value, c),
        }, outcome.issued);
      } catch (err) {
        if (!(err instanceof CredentialRejected)) throw err;
        await commit(entry, { state: "failed", errorMessage: err.message }, [], undefined);
        return { ok: true };
      }
      const credentialIds = [...rec.credentialIds, ...records.map((r) => r.id)];
      if (outcome.pending.length === 0) {
        await commit(entry, { state: "done", credentialIds }, records, undefined);
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
          records,
          undefined,
        );
      } else {
        await commit(entry, { credentialIds }, records, {
          ...d,
          transactions: outcome.pending,
          intervalS: outcome.intervalS,
          polls: d.polls + 1,
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
