/**
 * The org's `autoAcceptProofs: always` policy in action: an outbox handler that accepts a proof
 * request through the same prover method as the route (the newest match of each descriptor
 * needed), with the exchange kit's one rule for a step that no longer applies
 * (`autoStepHandler`: gone, moved on, or no longer satisfiable, and a person decides). Queued in
 * the commit that recorded the request, so it survives a crash.
 *
 * @module
 */
import { autoStepHandler } from "../didcomm/mod.ts";
import type { OutboxHandler } from "../outbox/mod.ts";
import type { ProofAutoAcceptPayload } from "./inbound.ts";
import type { ProofProver } from "./prover.ts";

/** The outbox handler of `proof_auto_accept` messages. */
export function proofAutoAcceptHandler(
  prover: ProofProver,
): OutboxHandler<ProofAutoAcceptPayload> {
  return autoStepHandler<ProofAutoAcceptPayload>(
    "proof auto-accept",
    ({ orgId, proofRecordId: id }) => prover.acceptRequest(orgId, id),
  );
}
