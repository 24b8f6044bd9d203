/**
 * Received Present Proof 2.0 messages (prover role): requests, the verifier's ack and its problem
 * reports. Handlers only add writes to the inbound operation (committed by the DIDComm layer with
 * the message's processed marker). A request is always recorded so a person sees it: answerable
 * (DIF PE) requests are evaluated against the org's credentials at once; a format this service
 * cannot answer (AnonCreds) stays `request-received` so it can be declined; a DIF PE request whose
 * definition is not valid is recorded `abandoned` and the verifier gets a problem report. With the
 * org's `autoAcceptProofs: always` an accept step is queued in the same operation (outbox kind
 * {@link PROOF_AUTO_ACCEPT_KIND}).
 *
 * @module
 */
import {
  errorMessage,
  type ExchangeHandler,
  type ExchangeInbound,
  threadIdOf,
} from "../didcomm/mod.ts";
import { uuidv7 } from "../kv/mod.ts";
import { log } from "../base/mod.ts";
import { enqueue } from "../outbox/mod.ts";
import { PE_DEFINITIONS, PRESENT_PROOF_V2, PROOF_PROBLEM_CODES } from "./messages.ts";
import { definitionProblems } from "./pex.ts";
import type { ProofProver } from "./prover.ts";
import { newProverRecord, type StoredProof, withProofState } from "./record.ts";
import { parseProofRequest } from "./request.ts";
import { addNewProof, addProofUpdate } from "./store.ts";

/** Outbox kind of automatic accepts (the org's `autoAcceptProofs: always`). */
export const PROOF_AUTO_ACCEPT_KIND = "proof_auto_accept";

/** Payload of a {@link PROOF_AUTO_ACCEPT_KIND} message. */
export interface ProofAutoAcceptPayload {
  orgId: string;
  proofRecordId: string;
}

/** Inbound message handlers of the prover, keyed by message type. */
export function proverHandlers(prover: ProofProver): Record<string, ExchangeHandler> {
  const kit = prover.exchanges;

  async function onRequest(inbound: ExchangeInbound): Promise<void> {
    const { orgId, connectionId, message, op, now } = inbound;
    const threadId = threadIdOf(message);
    if (!connectionId) return;
    if (await kit.isRepeat(inbound, threadId, PROOF_PROBLEM_CODES.unexpected, "A request")) return;
    const parsed = parseProofRequest(message);
    if (!parsed.ok && parsed.kind === "malformed") {
      return await kit.reply(
        inbound,
        threadId,
        PROOF_PROBLEM_CODES.malformed,
        `The request cannot be read: ${parsed.reason}.`,
      );
    }
    const base = {
      id: uuidv7(now),
      connectionId,
      threadId,
      verifierLabel: inbound.connection?.theirLabel ?? null,
      now,
    };
    const stored = (record: StoredProof["record"], answerable: boolean): StoredProof => ({
      orgId,
      record,
      request: { requestMessageId: message["@id"], answerable },
    });
    if (!parsed.ok) {
      const record = newProverRecord({
        ...base,
        state: "request-received",
        requestFormat: parsed.format,
        inputDescriptors: [],
        unanswerable: parsed.reason,
      });
      return addNewProof(op, stored(record, false), undefined, now);
    }
    const { request } = parsed;
    const pd = request.presentation_definition;
    const summary = {
      id: pd.id,
      ...(typeof pd.name === "string" ? { name: pd.name } : {}),
      ...(typeof pd.purpose === "string" ? { purpose: pd.purpose } : {}),
    };
    const problems = await definitionProblems(pd);
    if (problems.length > 0) {
      const why = `the presentation definition is not valid: ${problems.slice(0, 3).join("; ")}`;
      const record = newProverRecord({
        ...base,
        state: "abandoned",
        requestFormat: PE_DEFINITIONS,
        presentationDefinition: summary,
        inputDescriptors: [],
        errorMessage: errorMessage(PROOF_PROBLEM_CODES.malformed, why),
      });
      addNewProof(op, stored(record, false), undefined, now);
      return await kit.reply(inbound, threadId, PROOF_PROBLEM_CODES.malformed, why);
    }
    const holderDid = await prover.holderDid(orgId);
    const ev = holderDid
      ? await prover.evaluate(orgId, request, holderDid)
      : { descriptors: [], unmet: "The organization has no agent configured." };
    const record = newProverRecord({
      ...base,
      state: "request-received",
      requestFormat: PE_DEFINITIONS,
      presentationDefinition: summary,
      inputDescriptors: ev.descriptors,
      ...("selection" in ev && ev.selection ? { selection: ev.selection } : {}),
      ...(ev.unmet ? { unanswerable: ev.unmet } : {}),
    });
    addNewProof(op, stored(record, true), request, now);
    if (!ev.unmet && await prover.autoAcceptPolicy(orgId) === "always") {
      const payload: ProofAutoAcceptPayload = { orgId, proofRecordId: record.id };
      enqueue(op, { kind: PROOF_AUTO_ACCEPT_KIND, orgId, payload }, now);
    }
  }

  async function onAck(inbound: ExchangeInbound): Promise<void> {
    const entry = await kit.exchangeOf(inbound);
    if (!entry || entry.value.record.state !== "presentation-sent") {
      log("info", "proof ack for no exchange awaiting one", {
        orgId: inbound.orgId,
        state: entry?.value.record.state ?? null,
      });
      return;
    }
    addProofUpdate(inbound.op, entry, {
      ...entry.value,
      record: withProofState(entry.value.record, "done", inbound.now),
    }, inbound.now);
  }

  return {
    [PRESENT_PROOF_V2.request]: onRequest,
    [PRESENT_PROOF_V2.ack]: onAck,
    [PRESENT_PROOF_V2.problemReport]: (inbound) => kit.abandonOnProblemReport(inbound),
  };
}
