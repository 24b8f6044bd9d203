/**
 * The org's auto-accept policy in action: an outbox handler that runs a queued automatic step
 * (accept an offer, accept a verified credential) through the same holder methods as the routes.
 * Queued in the commit that made the step possible, so it survives a crash.
 *
 * @module
 */
import { AppError, log } from "../base/mod.ts";
import type { OutboxHandler } from "../outbox/mod.ts";
import type { CredentialHolder } from "./holder.ts";
import type { AutoAcceptPayload } from "./inbound.ts";

/** Retry delays of an automatic step that failed for a transient reason. */
export const AUTO_ACCEPT_SCHEDULE: readonly number[] = [1_000, 5_000, 30_000, 5 * 60_000];

/** The outbox handler of `credential_auto_accept` messages. */
export function autoAcceptHandler(holder: CredentialHolder): OutboxHandler<AutoAcceptPayload> {
  return {
    schedule: AUTO_ACCEPT_SCHEDULE,
    async handle(msg) {
      const { orgId, credentialRecordId: id, step } = msg.payload;
      try {
        if (step === "accept-offer") await holder.acceptOffer(orgId, id);
        else await holder.acceptCredential(orgId, id);
        return { ok: true };
      } catch (err: unknown) {
        // 404/409: someone else moved the record on (or it is gone): nothing left to do.
        if (err instanceof AppError && (err.status === 404 || err.status === 409)) {
          log("info", "credential auto-accept step skipped", { orgId, id, step, why: err.message });
          return { ok: true, status: err.status };
        }
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
