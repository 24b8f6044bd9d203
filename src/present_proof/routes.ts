/**
 * Proof exchange routes (prover, Present Proof 2.0): accept-request, decline-request and reading
 * records. The same org and role rules as credential exchanges: any member of the record's org, or
 * its agent token; another org's record is 404.
 *
 * Check order: 401 (token) → 400 (body/params) → 404 (unknown, or another org's record) →
 * 409 (state, unmet descriptor, unanswerable format). Org-scoped lists: 403 for a non-member.
 *
 * @module
 */
import {
  createRouter,
  jsonContent as json,
  memberRecordRoutes,
  orgRecordRoutes,
  RecordIdParam,
} from "../http/mod.ts";
import type { ProofProver } from "./prover.ts";
import {
  AcceptRequestBody,
  ProofExchangeList,
  ProofExchangeRecordSchema,
  ProofListQuery,
  ProofRecordIdBody,
} from "./schemas.ts";

/** What the proof routes use. */
export interface ProofRoutesDeps {
  prover: ProofProver;
}

/** The proof routes. */
export function proofRoutes({ prover }: ProofRoutesDeps) {
  const app = createRouter();
  const tags = ["proofs"];
  const exchanges = memberRecordRoutes(app, tags, {
    find: (id) => prover.find(id),
    missing: (id) => `No proof exchange record "${id}" exists.`,
  });

  exchanges.act({
    path: "/proofs/accept-request",
    operationId: "acceptProofRequest",
    summary: "Accept a proof request: the signed presentation is sent to the verifier",
    description: "Only from `request-received`. The presentation definition is evaluated " +
      "against the org's stored W3C credentials; the verifiable presentation (signed by the " +
      "org key's did:key, proof purpose `authentication`, the request's challenge and domain) " +
      "and the state change (`presentation-sent`) commit together, then the presentation is " +
      "delivered at least once. 409 names an unmet input descriptor or a format this service " +
      "cannot answer; nothing is sent then.",
    body: AcceptRequestBody,
    idField: "proofRecordId",
    ok: json(ProofExchangeRecordSchema, "The record, now in state presentation-sent."),
  }, (orgId, id, { selection }) => prover.acceptRequest(orgId, id, selection));

  exchanges.act({
    path: "/proofs/decline-request",
    operationId: "declineProofRequest",
    summary: "Decline a proof request: state declined, problem report sent to the verifier",
    body: ProofRecordIdBody,
    idField: "proofRecordId",
    ok: json(ProofExchangeRecordSchema, "The record, now in state declined."),
  }, (orgId, id) => prover.declineRequest(orgId, id));

  exchanges.read({
    path: "/proofs/{id}",
    operationId: "getProofExchange",
    summary: "One proof exchange record",
    description: "An open request (`request-received`, a format this service answers) is " +
      "evaluated again against the org's credentials as they are now: `inputDescriptors` " +
      "matches, `selection` and `unanswerable` say what accept would do.",
    params: RecordIdParam,
    ok: json(ProofExchangeRecordSchema, "The record."),
  }, (orgId, id) => prover.read(orgId, id));

  orgRecordRoutes(app, tags).list({
    path: "/orgs/{orgId}/proofs",
    operationId: "listProofExchanges",
    summary: "The org's proof exchange records, newest first",
    description: "Open requests are evaluated again as they are read (see `getProofExchange`).",
    query: ProofListQuery,
    page: json(ProofExchangeList, "A page of records."),
  }, (orgId, query) => prover.list(orgId, query));

  return app;
}
