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
  describeProblemReport,
  type InboundContext,
  type MessageHandlers,
} from "../didcomm/mod.ts";
import { uuidv7 } from "../kv/mod.ts";
import { log } from "../base/mod.ts";
import { enqueue } from "../outbox/mod.ts";
import {
  PE_DEFINITIONS,
  PRESENT_PROOF_V2,
  PROOF_PROBLEM_CODES,
  proofProblemReport,
} from "./messages.ts";
import { definitionProblems } from "./pex.ts";
import type { ProofProver } from "./prover.ts";
import { FINAL_PROOF_STATES, newProverRecord, type StoredProof, withProofState } from "./record.ts";
import { parseProofRequest } from "./request.ts";
import { addNewProof, addProofUpdate, readProofByThread } from "./store.ts";

/** Outbox kind of automatic accepts (the org's `autoAcceptProofs: always`). */
export const PROOF_AUTO_ACCEPT_KIND = "proof_auto_accept";

/** Payload of a {@link PROOF_AUTO_ACCEPT_KIND} message. */
export interface ProofAutoAcceptPayload {
  orgId: string;
  proofRecordId: string;
}

type Inbound = Pick<
  InboundContext,
  "orgId" | "connectionId" | "connection" | "message" | "op" | "now"
>;

/** Inbound message handlers of the prover, keyed by message type. */
export function proverHandlers(
  prover: ProofProver,
  kv: Deno.Kv,
): Record<string, (inbound: Inbound) => Promise<void>> {
  /** Adds a problem report to the sender to `inbound.op`. */
  async function reply(inbound: Inbound, threadId: string, code: string, en: string) {
    log("warn", "proof exchange problem", {
      orgId: inbound.orgId,
      connectionId: inbound.connectionId,
      threadId,
      type: inbound.message["@type"],
      code,
      reason: en,
    });
    if (!inbound.connectionId) return;
    await prover.queueOn(inbound.op, {
      orgId: inbound.orgId,
      connectionId: inbound.connectionId,
      message: proofProblemReport(threadId, code, en),
    });
  }

  /** The exchange of a message's thread on the sender's connection, or null. */
  async function exchangeOf(inbound: Inbound) {
    const threadId = inbound.message["~thread"]?.thid ?? inbound.message["@id"];
    const entry = await readProofByThread(kv, inbound.orgId, threadId);
    if (!entry || entry.value.record.connectionId !== inbound.connectionId) return null;
    return entry;
  }

  async function onRequest(inbound: Inbound): Promise<void> {
    const { orgId, connectionId, message, op, now } = inbound;
    const threadId = message["~thread"]?.thid ?? message["@id"];
    if (!connectionId) return;
    if (await readProofByThread(kv, orgId, threadId)) {
      return await reply(
        inbound,
        threadId,
        PROOF_PROBLEM_CODES.unexpected,
        `A request on thread "${threadId}" was already received; this one is ignored.`,
      );
    }
    const parsed = parseProofRequest(message);
    if (!parsed.ok && parsed.kind === "malformed") {
      return await reply(
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
        errorMessage: `${PROOF_PROBLEM_CODES.malformed}: ${why}`.slice(0, 1000),
      });
      addNewProof(op, stored(record, false), undefined, now);
      return await reply(inbound, threadId, PROOF_PROBLEM_CODES.malformed, why);
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

  async function onAck(inbound: Inbound): Promise<void> {
    const entry = await exchangeOf(inbound);
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

  async function onProblemReport(inbound: Inbound): Promise<void> {
    const entry = await exchangeOf(inbound);
    // Never answer a problem report with one (no loops); unknown threads are only logged.
    if (!entry || FINAL_PROOF_STATES.includes(entry.value.record.state)) {
      log("info", "problem report for no open proof exchange", { orgId: inbound.orgId });
      return;
    }
    addProofUpdate(inbound.op, entry, {
      ...entry.value,
      record: withProofState(entry.value.record, "abandoned", inbound.now, {
        errorMessage: describeProblemReport(inbound.message).slice(0, 1000),
      }),
    }, inbound.now);
  }

  return {
    [PRESENT_PROOF_V2.request]: onRequest,
    [PRESENT_PROOF_V2.ack]: onAck,
    [PRESENT_PROOF_V2.problemReport]: onProblemReport,
  };
}

/** Registers the prover's handlers (request, ack, problem report) with the DIDComm layer. */
export function registerProverHandlers(
  handlers: MessageHandlers,
  prover: ProofProver,
  kv: Deno.Kv,
): void {
  for (const [type, handler] of Object.entries(proverHandlers(prover, kv))) {
    handlers.register(type, handler);
  }
}
