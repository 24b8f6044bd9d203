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
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  type AppEnv,
  createRouter,
  errorResponses,
  jsonContent as json,
  OrgParams,
  parseLimit,
  visibleToMember,
} from "../http/mod.ts";
import type { ProofProver } from "./prover.ts";
import {
  AcceptRequestBody,
  ProofExchangeList,
  ProofExchangeRecordSchema,
  ProofIdParam,
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

  /** The record `id` and its org when the caller may see it; 404 otherwise (never leaks). */
  const visibleRecord = async (c: Context<AppEnv>, id: string) =>
    visibleToMember(
      c.var.principal,
      await prover.find(id),
      `No proof exchange record "${id}" exists.`,
    );

  app.openapi(
    createRoute({
      method: "post",
      path: "/proofs/accept-request",
      operationId: "acceptProofRequest",
      tags: ["proofs"],
      summary: "Accept a proof request: the signed presentation is sent to the verifier",
      description: "Only from `request-received`. The presentation definition is evaluated " +
        "against the org's stored W3C credentials; the verifiable presentation (signed by the " +
        "org key's did:key, proof purpose `authentication`, the request's challenge and domain) " +
        "and the state change (`presentation-sent`) commit together, then the presentation is " +
        "delivered at least once. 409 names an unmet input descriptor or a format this service " +
        "cannot answer; nothing is sent then.",
      request: {
        body: { required: true, content: { "application/json": { schema: AcceptRequestBody } } },
      },
      responses: {
        200: json(ProofExchangeRecordSchema, "The record, now in state presentation-sent."),
        ...errorResponses(400, 401, 404, 409, 503),
      },
    }),
    async (c) => {
      const { proofRecordId: id, selection } = c.req.valid("json");
      const { orgId } = await visibleRecord(c, id);
      return c.json(await prover.acceptRequest(orgId, id, selection), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/proofs/decline-request",
      operationId: "declineProofRequest",
      tags: ["proofs"],
      summary: "Decline a proof request: state declined, problem report sent to the verifier",
      request: {
        body: { required: true, content: { "application/json": { schema: ProofRecordIdBody } } },
      },
      responses: {
        200: json(ProofExchangeRecordSchema, "The record, now in state declined."),
        ...errorResponses(400, 401, 404, 409, 503),
      },
    }),
    async (c) => {
      const { proofRecordId: id } = c.req.valid("json");
      const { orgId } = await visibleRecord(c, id);
      return c.json(await prover.declineRequest(orgId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/proofs/{id}",
      operationId: "getProofExchange",
      tags: ["proofs"],
      summary: "One proof exchange record",
      description: "An open request (`request-received`, a format this service answers) is " +
        "evaluated again against the org's credentials as they are now: `inputDescriptors` " +
        "matches, `selection` and `unanswerable` say what accept would do.",
      request: { params: ProofIdParam },
      responses: {
        200: json(ProofExchangeRecordSchema, "The record."),
        ...errorResponses(400, 401, 404, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { orgId } = await visibleRecord(c, id);
      return c.json(await prover.read(orgId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/proofs",
      operationId: "listProofExchanges",
      tags: ["proofs"],
      summary: "The org's proof exchange records, newest first",
      description: "Open requests are evaluated again as they are read (see `getProofExchange`).",
      request: { params: OrgParams, query: ProofListQuery },
      responses: {
        200: json(ProofExchangeList, "A page of records."),
        ...errorResponses(400, 401, 403, 503),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const { state, limit, cursor } = c.req.valid("query");
      return c.json(await prover.list(orgId, { limit: parseLimit(limit), cursor, state }), 200);
    },
  );

  return app;
}
