/**
 * Problem reports (Aries RFC 0035): the error a message handler throws to refuse a message, and
 * the report sent back on the message's thread.
 *
 * @module
 */
import {
  type DidCommMessage,
  MessageTypes,
  newMessageId,
  parseMessageType,
  threadIdOf,
} from "./messages.ts";

/**
 * Thrown by an inbound handler to refuse a message: the framework answers with a problem report
 * on the message's thread (when the message came over a connection) and records the message as
 * processed. `code` is a protocol problem code (e.g. `request_not_accepted`,
 * `issuance-abandoned`), `message` the English description sent to the peer.
 */
export class DidCommProblem extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "DidCommProblem";
    this.code = code;
  }
}

/** Problem code of a message that could not be parsed or is not supported. */
export const MESSAGE_PARSE_FAILURE = "message-parse-failure";

/** Message names never answered with a problem report (no report loops). */
const NEVER_ANSWER = new Set(["problem-report", "problem_report", "ack", "ping_response"]);

/** True when a problem report may be sent in answer to `message`. */
export function mayAnswerWithProblem(message: DidCommMessage): boolean {
  const t = parseMessageType(message["@type"]);
  return !t || !NEVER_ANSWER.has(t.name);
}

/**
 * The problem report answering `message`: its protocol's own report type when it has one
 * (`problem_report` for DID Exchange and Connections 1.0, `problem-report` otherwise), else
 * `notification/1.0/problem-report`; `~thread.thid` = the message's thread.
 */
export function problemReportFor(
  message: DidCommMessage,
  code: string,
  description: string,
): DidCommMessage {
  const t = parseMessageType(message["@type"]);
  let type: string = MessageTypes.problemReport;
  if (t && t.docUri === "https://didcomm.org/") {
    type = t.protocol === "didexchange" || t.protocol === "connections"
      ? `${t.protocolUri}/problem_report`
      : `${t.protocolUri}/problem-report`;
  }
  const thread: Record<string, string> = { thid: threadIdOf(message) };
  const pthid = message["~thread"]?.pthid;
  if (typeof pthid === "string") thread.pthid = pthid;
  return {
    "@type": type,
    "@id": newMessageId(),
    "~thread": thread,
    description: { en: description, code },
    "problem-code": code,
    explain: description,
  };
}

/**
 * A protocol's own problem report (its `type`, e.g. `…/issue-credential/2.0/problem-report`) on
 * thread `threadId`: `description: {en, code}` (RFC 0035).
 */
export function threadProblemReport(
  type: string,
  threadId: string,
  code: string,
  explanation: string,
): DidCommMessage {
  return {
    "@type": type,
    "@id": crypto.randomUUID(),
    description: { en: explanation, code },
    "~thread": { thid: threadId },
  };
}

/** The English description and code of a received problem report, for `errorMessage`. */
export function describeProblemReport(message: DidCommMessage): string {
  const d = message.description;
  let code: unknown = message["problem-code"];
  let en: unknown = message.explain;
  if (typeof d === "object" && d !== null) {
    code ??= (d as Record<string, unknown>).code;
    en ??= (d as Record<string, unknown>).en;
  }
  const c = typeof code === "string" ? code : "unknown";
  const e = typeof en === "string" ? en : "no description";
  return `${c}: ${e}`.slice(0, 500);
}
