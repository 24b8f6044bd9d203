/**
 * Present Proof 2.0 over DIDComm, prover side, with DIF Presentation Exchange: the `ProofProver`
 * service, its DIDComm message handlers (request, ack, problem report), the `autoAcceptProofs`
 * policy in action and the routes (accept-request, decline-request, records).
 *
 * @module
 */
export { ProofProver, type ProverDeps } from "./prover.ts";
export { proofRoutes, type ProofRoutesDeps } from "./routes.ts";
export { PROOF_AUTO_ACCEPT_KIND, type ProofAutoAcceptPayload, proverHandlers } from "./inbound.ts";
export { proofAutoAcceptHandler } from "./auto_accept.ts";
export type { ProofExchangeRecord, ProofState } from "./record.ts";
