/**
 * The org's auto-accept policy in action: an outbox handler that runs a queued automatic step
 * (accept an offer, accept a verified credential) through the same holder methods as the routes,
 * with the exchange kit's one rule for a step that no longer applies (`autoStepHandler`). Queued
 * in the commit that made the step possible, so it survives a crash.
 *
 * @module
 */
import { autoStepHandler } from "../didcomm/mod.ts";
import type { OutboxHandler } from "../outbox/mod.ts";
import type { CredentialHolder } from "./holder.ts";
import type { AutoAcceptPayload } from "./inbound.ts";

/** The outbox handler of `credential_auto_accept` messages. */
export function autoAcceptHandler(holder: CredentialHolder): OutboxHandler<AutoAcceptPayload> {
  return autoStepHandler<AutoAcceptPayload>(
    "credential auto-accept step",
    ({ orgId, credentialRecordId: id, step }) =>
      step === "accept-offer" ? holder.acceptOffer(orgId, id) : holder.acceptCredential(orgId, id),
  );
}
