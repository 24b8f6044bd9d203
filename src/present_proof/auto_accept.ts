/**
 * The org's `autoAcceptProofs: always` policy in action: an outbox handler that accepts a proof
 * request through the same prover method as the route (the newest match of each descriptor
 * needed). Queued in the commit that recorded the request, so it survives a crash.
 *
 * @module
 */
import { AppError, log } from "../base/mod.ts";
import type { OutboxHandler } from "../outbox/mod.ts";
import type { ProofAutoAcceptPayload } from "./inbound.ts";
import type { ProofProver } from "./prover.ts";

/** Retry delays of an automatic accept that failed for a transient reason. */
const SCHEDULE: readonly number[] = [1_000, 5_000, 30_000, 5 * 60_000];

/** The outbox handler of `proof_auto_accept` messages. */
export function proofAutoAcceptHandler(
  prover: ProofProver,
): OutboxHandler<ProofAutoAcceptPayload> {
  return {
    schedule: SCHEDULE,
    async handle(msg) {
      const { orgId, proofRecordId: id } = msg.payload;
      try {
        await prover.acceptRequest(orgId, id);
        return { ok: true };
      } catch (err: unknown) {
        // 404/409: gone, moved on, or no longer satisfiable: a person decides (decline or wait).
        if (err instanceof AppError && err.status >= 400 && err.status < 500) {
          log("info", "proof auto-accept skipped", { orgId, id, why: err.message });
          return { ok: true, status: err.status };
        }
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
