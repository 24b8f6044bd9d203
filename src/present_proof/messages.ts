/**
 * Present Proof 2.0 (Aries RFC 0454) messages the prover reads and sends, the DIF Presentation
 * Exchange attachment formats (Aries RFC 0510) and the AnonCreds ones it recognises but cannot
 * answer.
 *
 * @module
 */
import { type DidCommMessage, formatAttachment, threadProblemReport } from "../didcomm/mod.ts";

const BASE = "https://didcomm.org/present-proof/2.0";

/** Message types of Present Proof 2.0. */
export const PRESENT_PROOF_V2 = {
  request: `${BASE}/request-presentation`,
  presentation: `${BASE}/presentation`,
  ack: `${BASE}/ack`,
  problemReport: `${BASE}/problem-report`,
} as const;

/** RFC 0510 format of a request's attachment: `{options: {challenge, domain}, presentation_definition}`. */
export const PE_DEFINITIONS = "dif/presentation-exchange/definitions@v1.0";
/** RFC 0510 format of the presentation's attachment: the VP carrying `presentation_submission`. */
export const PE_SUBMISSION = "dif/presentation-exchange/submission@v1.0";

/** Request formats of AnonCreds (no AnonCreds library can be installed here). */
export const ANONCREDS_REQUEST_FORMATS = [
  "hlindy/proof-req@v2.0",
  "anoncreds/proof-request@v1.0",
];

/** Problem codes this prover sends. */
export const PROOF_PROBLEM_CODES = {
  /** The holder declined the request (Credo's `DidCommPresentationProblemReportReason`). */
  declined: "abandoned",
  /** A message we cannot relate to an exchange, or that arrives in the wrong state. */
  unexpected: "unexpected-message",
  /** A request we cannot read. */
  malformed: "malformed-message",
} as const;

/** The `presentation` message on thread `threadId` carrying one signed VP (RFC 0510). */
export function presentationMessage(
  threadId: string,
  presentation: Record<string, unknown>,
): DidCommMessage {
  const { format, attachment } = formatAttachment(PE_SUBMISSION, presentation);
  return {
    "@type": PRESENT_PROOF_V2.presentation,
    "@id": crypto.randomUUID(),
    formats: [format],
    "presentations~attach": [attachment],
    last_presentation: true,
    "~thread": { thid: threadId },
  };
}

/** An RFC 0035 problem report of this protocol on thread `threadId`. */
export function proofProblemReport(
  threadId: string,
  code: string,
  explanation: string,
): DidCommMessage {
  return threadProblemReport(PRESENT_PROOF_V2.problemReport, threadId, code, explanation);
}
