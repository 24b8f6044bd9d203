/**
 * Abandoning a handshake: the connection becomes `abandoned` with an `errorMessage`, and the
 * refused message is answered with a problem report, in the inbound message's commit.
 *
 * @module
 */
import type { InboundContext } from "../handlers.ts";
import { queueMessageOn } from "../outbound.ts";
import { type DidCommProblem, problemReportFor } from "../problem_report.ts";
import { saveConnection } from "./record.ts";

/** Abandons `ctx.connection` because of `problem` and queues the problem report. */
export function abandonConnection(ctx: InboundContext, problem: DidCommProblem): void {
  const conn = ctx.connection!;
  const next = {
    ...conn,
    state: "abandoned" as const,
    errorMessage: `${problem.code}: ${problem.message}`,
    updatedAt: new Date(ctx.now).toISOString(),
  };
  saveConnection(ctx.op, ctx.connectionEntry, next, ctx.now);
  queueMessageOn(
    ctx.op,
    next,
    problemReportFor(ctx.message, problem.code, problem.message),
    ctx.now,
  );
}
