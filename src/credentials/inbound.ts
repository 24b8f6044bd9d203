/**
 * Received Issue Credential 2.0 messages (holder role): offers, issued credentials, problem
 * reports. Nothing here throws for bad input: a message that cannot be related to an exchange in
 * the right state, or cannot be read, gets a problem report and changes no record; a credential
 * whose proof or content is wrong abandons the exchange (with a problem report).
 *
 * @module
 */
import { uuidv7 } from "../kv/ids.ts";
import { log } from "../log.ts";
import { verifyCredential } from "./jsonld/verify.ts";
import type { CredentialHolder } from "./holder.ts";
import type { InboundMessage } from "./didcomm_port.ts";
import {
  credentialMismatch,
  type LdProofVcDetail,
  parseIssuedCredential,
  parseOffer,
} from "./jsonld_format.ts";
import {
  ISSUE_CREDENTIAL_V2,
  PROBLEM_CODES,
  problemReportMessage,
  threadIdOf,
} from "./messages.ts";
import { FINAL_STATES, newHolderRecord, type StoredExchange, withState } from "./record.ts";
import {
  addExchangeUpdate,
  addNewExchange,
  addW3cCredential,
  newW3cRecord,
  readExchangeByThread,
} from "./store.ts";

type Json = Record<string, unknown>;

/** Inbound message handlers of the holder, keyed by message type. */
export function inboundHandlers(holder: CredentialHolder) {
  const { deps } = holder;

  /** Commits a lone problem report to the sender; logs instead when there is no connection. */
  async function reply(inbound: InboundMessage, threadId: string, code: string, en: string) {
    log("warn", "credential exchange problem", {
      orgId: inbound.orgId,
      connectionId: inbound.connectionId,
      threadId,
      type: inbound.message["@type"],
      code,
      reason: en,
    });
    if (!inbound.connectionId) return;
    try {
      const op = deps.kv.atomic();
      await holder.port.queueMessage(op, {
        orgId: inbound.orgId,
        connectionId: inbound.connectionId,
        message: problemReportMessage(threadId, code, en),
      });
      if ((await op.commit()).ok) deps.dispatcher.wake();
    } catch (err: unknown) {
      log("warn", "problem report not queued", {
        orgId: inbound.orgId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** The exchange of a message's thread on the sender's connection, or why not. */
  async function exchangeOf(inbound: InboundMessage, threadId: string) {
    const entry = await readExchangeByThread(deps.kv, inbound.orgId, threadId);
    if (!entry || entry.value.record.connectionId !== inbound.connectionId) return null;
    return entry;
  }

  async function onOffer(inbound: InboundMessage): Promise<void> {
    const { orgId, connectionId, message } = inbound;
    const threadId = threadIdOf(message);
    if (!threadId) {
      return await reply(inbound, "", PROBLEM_CODES.malformed, "The offer has no @id.");
    }
    if (!connectionId) {
      return await reply(inbound, threadId, PROBLEM_CODES.unexpected, "No connection.");
    }
    const existing = await readExchangeByThread(deps.kv, orgId, threadId);
    if (existing) {
      return await reply(
        inbound,
        threadId,
        PROBLEM_CODES.unexpected,
        `An offer on thread "${threadId}" was already received; this one is ignored.`,
      );
    }
    const parsed = parseOffer(message);
    if (!parsed.ok && parsed.kind === "malformed") {
      return await reply(
        inbound,
        threadId,
        PROBLEM_CODES.malformed,
        `The offer cannot be read: ${parsed.reason}.`,
      );
    }
    const now = deps.now();
    const record = newHolderRecord({
      id: uuidv7(now),
      connectionId,
      threadId,
      state: parsed.ok ? "offer-received" : "abandoned",
      credentialAttributes: parsed.ok ? parsed.attributes : [],
      metadata: parsed.ok ? parsed.metadata : parsed.metadata ?? {},
      ...(parsed.ok ? {} : { errorMessage: `${PROBLEM_CODES.abandoned}: ${parsed.reason}` }),
      now,
    });
    const stored: StoredExchange = {
      orgId,
      record,
      format: {
        offerFormat: parsed.ok ? "aries/ld-proof-vc-detail@v1.0" : parsed.format ?? "",
        ...(parsed.ok ? { offer: parsed.detail } : {}),
        offerMessageId: String(message["@id"]),
      },
    };
    const op = deps.kv.atomic();
    addNewExchange(op, stored, now);
    if (!parsed.ok) {
      await holder.port.queueMessage(op, {
        orgId,
        connectionId,
        message: problemReportMessage(threadId, PROBLEM_CODES.abandoned, parsed.reason),
      });
    }
    if (!(await op.commit()).ok) {
      return await reply(inbound, threadId, PROBLEM_CODES.unexpected, "Duplicate offer.");
    }
    deps.dispatcher.wake();
    if (parsed.ok && await holder.autoAcceptPolicy(orgId) === "always") {
      await holder.auto("offer", orgId, record.id, () => holder.acceptOffer(orgId, record.id));
    }
  }

  async function onCredential(inbound: InboundMessage): Promise<void> {
    const { orgId, message } = inbound;
    const threadId = threadIdOf(message) ?? "";
    const entry = await exchangeOf(inbound, threadId);
    if (!entry) {
      return await reply(
        inbound,
        threadId,
        PROBLEM_CODES.unexpected,
        `No credential exchange on thread "${threadId}" expects a credential.`,
      );
    }
    const stored = entry.value;
    const notNow = () =>
      reply(
        inbound,
        threadId,
        PROBLEM_CODES.unexpected,
        `The exchange on thread "${threadId}" is in state "${stored.record.state}"; ` +
          `a credential is accepted only in "request-sent".`,
      );
    if (stored.record.state !== "request-sent" || !stored.format.request) return await notNow();
    const parsed = parseIssuedCredential(message);
    if (!parsed.ok) {
      return await reply(
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
        now: new Date(deps.now()),
      });
      if (!result.verified) problem = `credential proof does not verify (${result.error})`;
    }
    const now = deps.now();
    const op = deps.kv.atomic();
    let next: StoredExchange;
    if (problem) {
      next = {
        ...stored,
        record: withState(stored.record, "abandoned", now, {
          errorMessage: `${PROBLEM_CODES.abandoned}: ${problem}`,
        }),
      };
      await holder.port.queueMessage(op, {
        orgId,
        connectionId: stored.record.connectionId,
        message: problemReportMessage(threadId, PROBLEM_CODES.abandoned, problem),
      });
    } else {
      const w3c = newW3cRecord({ id: uuidv7(now), credential: vc, exchange: stored.record, now });
      addW3cCredential(op, orgId, w3c);
      next = {
        ...stored,
        record: withState(stored.record, "credential-received", now, {
          credentials: [
            ...stored.record.credentials,
            { credentialRecordType: "w3c", credentialRecordId: w3c.id },
          ],
        }),
      };
    }
    addExchangeUpdate(op, entry, next, now);
    if (!(await op.commit()).ok) return await notNow(); // a concurrent copy won
    deps.dispatcher.wake();
    if (!problem && await holder.autoAcceptPolicy(orgId) !== "never") {
      const id = stored.record.id;
      await holder.auto("credential", orgId, id, () => holder.acceptCredential(orgId, id));
    }
  }

  async function onProblemReport(inbound: InboundMessage): Promise<void> {
    const { message } = inbound;
    const threadId = threadIdOf(message) ?? "";
    const entry = await exchangeOf(inbound, threadId);
    // Never answer a problem report with one (no loops); unknown threads are only logged.
    if (!entry || FINAL_STATES.includes(entry.value.record.state)) {
      log("info", "problem report for no open credential exchange", {
        orgId: inbound.orgId,
        threadId,
      });
      return;
    }
    const d = message.description as Json | undefined;
    const code = typeof d?.code === "string" ? d.code : "problem-report";
    const en = typeof d?.en === "string" ? d.en : "the issuer reported a problem";
    const now = deps.now();
    const op = deps.kv.atomic();
    addExchangeUpdate(op, entry, {
      ...entry.value,
      record: withState(entry.value.record, "abandoned", now, {
        errorMessage: `${code}: ${en}`.slice(0, 1000),
      }),
    }, now);
    if ((await op.commit()).ok) deps.dispatcher.wake();
  }

  /** Wraps a handler so an unexpected failure is logged, never thrown into the transport. */
  const safe = (fn: (m: InboundMessage) => Promise<void>) => async (m: InboundMessage) => {
    try {
      await fn(m);
    } catch (err: unknown) {
      log("error", "credential message handler failed", {
        orgId: m.orgId,
        type: m.message["@type"],
        error: err instanceof Error ? err.message : String(err),
      });
    }
  };

  return {
    [ISSUE_CREDENTIAL_V2.offer]: safe(onOffer),
    [ISSUE_CREDENTIAL_V2.credential]: safe(onCredential),
    [ISSUE_CREDENTIAL_V2.problemReport]: safe(onProblemReport),
  };
}
