/**
 * Issue Credential 2.0 (Aries RFC 0453) messages the holder sends and reads, and RFC 0035
 * problem reports.
 *
 * @module
 */
import { isObject } from "../base/mod.ts";
import { type DidCommMessage, formatAttachment, threadProblemReport } from "../didcomm/mod.ts";

const BASE = "https://didcomm.org/issue-credential/2.0";

/** Message types of Issue Credential 2.0. */
export const ISSUE_CREDENTIAL_V2 = {
  offer: `${BASE}/offer-credential`,
  request: `${BASE}/request-credential`,
  credential: `${BASE}/issue-credential`,
  ack: `${BASE}/ack`,
  problemReport: `${BASE}/problem-report`,
  proposal: `${BASE}/propose-credential`,
} as const;

/** RFC 0593 attachment formats. */
export const LD_PROOF_VC_DETAIL = "aries/ld-proof-vc-detail@v1.0";
/** RFC 0593 issued credential format. */
export const LD_PROOF_VC = "aries/ld-proof-vc@v1.0";

/** Problem report codes this holder sends. */
export const PROBLEM_CODES = {
  /** The exchange is given up (bad proof, unsupported format, declined). */
  abandoned: "issuance-abandoned",
  /** A message we cannot relate to an exchange or that arrives in the wrong state. */
  unexpected: "unexpected-message",
  /** A message we cannot parse. */
  malformed: "malformed-message",
} as const;

/** The thread id of a message: `~thread.thid`, else its own `@id`. */
export function threadIdOf(message: Record<string, unknown>): string | undefined {
  const thread = message["~thread"];
  if (isObject(thread)) {
    const thid = thread.thid;
    if (typeof thid === "string" && thid.length > 0) return thid;
  }
  const id = message["@id"];
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

/** `request-credential` carrying one JSON-LD detail attachment, on thread `threadId`. */
export function requestMessage(threadId: string, detail: Record<string, unknown>): DidCommMessage {
  const { format, attachment } = formatAttachment(LD_PROOF_VC_DETAIL, detail);
  return {
    "@type": ISSUE_CREDENTIAL_V2.request,
    "@id": crypto.randomUUID(),
    formats: [format],
    "requests~attach": [attachment],
    "~thread": { thid: threadId },
  };
}

/** The `ack` (`status: "OK"`) that completes the exchange on thread `threadId`. */
export function ackMessage(threadId: string): DidCommMessage {
  return {
    "@type": ISSUE_CREDENTIAL_V2.ack,
    "@id": crypto.randomUUID(),
    status: "OK",
    "~thread": { thid: threadId },
  };
}

/** An RFC 0035 problem report of this protocol on thread `threadId`. */
export function problemReportMessage(
  threadId: string,
  code: string,
  explanation: string,
): DidCommMessage {
  return threadProblemReport(ISSUE_CREDENTIAL_V2.problemReport, threadId, code, explanation);
}
