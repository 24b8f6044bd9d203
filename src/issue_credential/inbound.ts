/**
 * Received Issue Credential 2.0 messages (holder role): offers, issued credentials, problem
 * reports. Handlers only add writes to the inbound operation (committed by the DIDComm layer with
 * the message's processed marker). Nothing here throws for bad input: a message that cannot be
 * related to an exchange in the right state, or cannot be read, gets a problem report and changes
 * no record; a credential whose proof or content is wrong abandons the exchange (with a problem
 * report). Auto-accept steps are queued in the same operation (outbox kind
 * {@link AUTO_ACCEPT_KIND}) and run the same methods as the routes.
 *
 * @module
 */
import { errorMessage, type ExchangeHandler, type ExchangeInbound } from "../didcomm/mod.ts";
import { uuidv7 } from "../kv/mod.ts";
import { enqueue } from "../outbox/mod.ts";
import {
  newW3cRecord,
  type StoredCredential,
  subjectOf,
  verifyCredential,
} from "../credentials/mod.ts";
import type { CredentialHolder } from "./holder.ts";
import { credentialMismatch } from "./jsonld_match.ts";
import { type LdProofVcDetail, parseIssuedCredential, parseOffer } from "./jsonld_format.ts";
import {
  ISSUE_CREDENTIAL_V2,
  LD_PROOF_VC_DETAIL,
  PROBLEM_CODES,
  problemReportMessage,
  threadIdOf,
} from "./messages.ts";
import { newHolderRecord, type StoredExchange, withState } from "./record.ts";
import { addExchangeUpdate, addNewExchange } from "./store.ts";

/** Outbox kind of automatic accept steps (auto-accept policy). */
export const AUTO_ACCEPT_KIND = "credential_auto_accept";

/** Payload of an {@link AUTO_ACCEPT_KIND} message. */
export interface AutoAcceptPayload {
  orgId: string;
  credentialRecordId: string;
  step: "accept-offer" | "accept-credential";
}

/** Inbound message handlers of the holder, keyed by message type. */
export function holderHandlers(holder: CredentialHolder): Record<string, ExchangeHandler> {
  const kit = holder.exchanges;

  /** Queues an automatic step in `op` when the org's policy asks for it. */
  async function autoStep(inbound: ExchangeInbound, id: string, step: AutoAcceptPayload["step"]) {
    const policy = await holder.autoAcceptPolicy(inbound.orgId);
    const wanted = step === "accept-offer" ? policy === "always" : policy !== "never";
    if (!wanted) return;
    const payload: AutoAcceptPayload = { orgId: inbound.orgId, credentialRecordId: id, step };
    enqueue(inbound.op, { kind: AUTO_ACCEPT_KIND, orgId: inbound.orgId, payload }, inbound.now);
  }

  async function onOffer(inbound: ExchangeInbound): Promise<void> {
    const { orgId, connectionId, message, op, now } = inbound;
    const threadId = threadIdOf(message);
    if (!threadId) {
      return await kit.reply(inbound, "", PROBLEM_CODES.malformed, "The offer has no @id.");
    }
    if (!connectionId) {
      return await kit.reply(inbound, threadId, PROBLEM_CODES.unexpected, "No connection.");
    }
    if (await kit.isRepeat(inbound, threadId, PROBLEM_CODES.unexpected, "An offer")) return;
    const parsed = parseOffer(message);
    if (!parsed.ok && parsed.kind === "malformed") {
      return await kit.reply(
        inbound,
        threadId,
        PROBLEM_CODES.malformed,
        `The offer cannot be read: ${parsed.reason}.`,
      );
    }
    const record = newHolderRecord({
      id: uuidv7(now),
      connectionId,
      threadId,
      state: parsed.ok ? "offer-received" : "abandoned",
      credentialAttributes: parsed.ok ? parsed.attributes : [],
      metadata: parsed.ok ? parsed.metadata : parsed.metadata ?? {},
      ...(parsed.ok ? {} : { errorMessage: errorMessage(PROBLEM_CODES.abandoned, parsed.reason) }),
      now,
    });
    const stored: StoredExchange = {
      orgId,
      record,
      format: {
        offerFormat: parsed.ok ? LD_PROOF_VC_DETAIL : parsed.format ?? "",
        ...(parsed.ok ? { offer: parsed.detail } : {}),
        offerMessageId: String(message["@id"]),
      },
    };
    addNewExchange(op, stored, now);
    if (parsed.ok) {
      await autoStep(inbound, record.id, "accept-offer");
    } else {
      await kit.queueOn(op, {
        orgId,
        connectionId,
        message: problemReportMessage(threadId, PROBLEM_CODES.abandoned, parsed.reason),
      });
    }
  }

  async function onCredential(inbound: ExchangeInbound): Promise<void> {
    const { orgId, message, op, now } = inbound;
    const threadId = threadIdOf(message) ?? "";
    const entry = await kit.exchangeOf(inbound);
    if (!entry) {
      return await kit.reply(
        inbound,
        threadId,
        PROBLEM_CODES.unexpected,
        `No credential exchange on thread "${threadId}" expects a credential.`,
      );
    }
    const stored = entry.value;
    if (stored.record.state !== "request-sent" || !stored.format.request) {
      return await kit.reply(
        inbound,
        threadId,
        PROBLEM_CODES.unexpected,
        `The exchange on thread "${threadId}" is in state "${stored.record.state}"; ` +
          `a credential is accepted only in "request-sent".`,
      );
    }
    const parsed = parseIssuedCredential(message);
    if (!parsed.ok) {
      return await kit.reply(
        inbound,
        threadId,
        PROBLEM_CODES.malformed,
        `The credential cannot be read: ${parsed.reason}.`,
      );
    }
    const vc = parsed.credential;
    const request = stored.format.request as LdProofVcDetail;
    let problem = credentialMismatch(vc, request);
    if (!problem) {
      const result = await verifyCredential(vc, {
        resolveDid: holder.resolveDid,
        contexts: holder.contexts,
        now: new Date(now),
      });
      if (!result.verified) problem = `credential proof does not verify (${result.error})`;
    }
    const received: StoredCredential = {
      format: "ldp_vc",
      record: newW3cRecord({ id: uuidv7(now), credential: vc, exchange: stored.record, now }),
    };
    // Status on receipt: a revoked credential is refused; an unknown status is kept as such.
    const status = problem ? undefined : await holder.status.statusOf(subjectOf(received));
    if (status?.state === "revoked") {
      problem = `the credential is revoked by its issuer (status list)`;
    }
    let next: StoredExchange;
    if (problem) {
      next = {
        ...stored,
        record: withState(stored.record, "abandoned", now, {
          errorMessage: errorMessage(PROBLEM_CODES.abandoned, problem),
        }),
      };
      await kit.queueOn(op, {
        orgId,
        connectionId: stored.record.connectionId,
        message: problemReportMessage(threadId, PROBLEM_CODES.abandoned, problem),
      });
    } else {
      holder.credentials.add(op, orgId, received, status);
      next = {
        ...stored,
        record: withState(stored.record, "credential-received", now, {
          credentials: [
            ...stored.record.credentials,
            { credentialRecordType: "w3c", credentialRecordId: received.record.id },
          ],
        }),
      };
      await autoStep(inbound, stored.record.id, "accept-credential");
    }
    addExchangeUpdate(op, entry, next, now);
  }

  return {
    [ISSUE_CREDENTIAL_V2.offer]: onOffer,
    [ISSUE_CREDENTIAL_V2.credential]: onCredential,
    [ISSUE_CREDENTIAL_V2.problemReport]: (inbound) => kit.abandonOnProblemReport(inbound),
  };
}
