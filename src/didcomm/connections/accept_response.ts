/**
 * Accepting a handshake response (DID Exchange 1.x or Connections 1.0): the other side's DID
 * document must give a usable DIDComm service, and the response must have been sent with one of
 * its keys.
 *
 * @module
 */
import type { DidDocument } from "../../did/mod.ts";
import { DidCommProblem } from "../problem_report.ts";
import { DidUnusableError, documentVerkeys, targetFromDocument } from "../resolve.ts";
import type { ConnectionRecord } from "./record.ts";

const PROBLEM = "response_not_accepted";

/**
 * `conn` completed with their DID `theirDid` and its document `doc`: the target comes from the
 * document, their keys are its verkeys and the target's recipient keys. Throws
 * `DidCommProblem("response_not_accepted")` when the document is unusable for DIDComm, or with
 * `wrongSender` when `senderKey` is not one of their keys.
 */
export function acceptResponse(
  conn: ConnectionRecord,
  theirDid: string,
  doc: DidDocument,
  senderKey: string | null,
  wrongSender: string,
  now: number,
): ConnectionRecord {
  let target;
  try {
    target = targetFromDocument(doc);
  } catch (err) {
    if (err instanceof DidUnusableError) throw new DidCommProblem(PROBLEM, err.message);
    throw err;
  }
  const theirKeys = [...new Set([...documentVerkeys(doc), ...target.recipientKeys])];
  if (!senderKey || !theirKeys.includes(senderKey)) {
    throw new DidCommProblem(PROBLEM, wrongSender);
  }
  return {
    ...conn,
    state: "completed",
    theirDid,
    their: target,
    theirKeys,
    updatedAt: new Date(now).toISOString(),
  };
}
