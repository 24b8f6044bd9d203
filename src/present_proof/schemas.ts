/**
 * Request and response schemas of the proof routes (zod, shown in `GET /openapi.json`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { pageOf, stateListQuery, uuidSchema } from "../http/mod.ts";
import { PROOF_STATES } from "./record.ts";

/** Body of decline-request: `{proofRecordId}`. */
export const ProofRecordIdBody = z.object({
  proofRecordId: uuidSchema("proofRecordId"),
}).strict().openapi("ProofRecordIdRequest");

/** Body of accept-request: `{proofRecordId, selection?}`. */
export const AcceptRequestBody = z.object({
  proofRecordId: uuidSchema("proofRecordId"),
  selection: z.record(z.string().max(200), uuidSchema("selection value")).optional().openapi({
    description: "Input descriptor id → stored W3C credential id. Default: the newest match of " +
      "each input descriptor the answer needs (see the record's `selection`).",
    example: { name: "0194f3a1-7c1e-7b2a-9f00-3c5d2e1a4b6c" },
  }),
}).strict().openapi("AcceptProofRequest");

const Match = z.object({
  credentialId: z.string().openapi({ format: "uuid" }),
  format: z.literal("ldp_vc"),
  disclosedClaims: z.array(z.array(z.string())).openapi({
    description: "Claim paths the answer carries: every claim of the credential (a JSON-LD " +
      "credential with an Ed25519 proof is presented whole).",
    example: [["credentialSubject", "name"]],
  }),
}).openapi("ProofDescriptorMatch");

const Descriptor = z.object({
  id: z.string(),
  name: z.string().optional(),
  purpose: z.string().optional(),
  group: z.array(z.string()).optional(),
  requestedFields: z.array(z.string()).openapi({ example: ["$.credentialSubject.name"] }),
  matches: z.array(Match),
}).openapi("ProofInputDescriptor");

/** The proof exchange record (Credo's ProofExchangeRecord JSON plus what a person decides on). */
export const ProofExchangeRecordSchema = z.object({
  id: z.string().openapi({ format: "uuid" }),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
  state: z.enum(PROOF_STATES),
  role: z.literal("prover"),
  connectionId: z.string().openapi({ format: "uuid" }),
  threadId: z.string(),
  protocolVersion: z.literal("v2"),
  metadata: z.record(z.string(), z.record(z.string(), z.unknown())),
  _tags: z.object({
    state: z.enum(PROOF_STATES),
    threadId: z.string(),
    connectionId: z.string(),
    role: z.literal("prover"),
  }),
  errorMessage: z.string().optional(),
  verifier: z.object({ connectionId: z.string(), label: z.string().nullable() }),
  requestFormat: z.string().openapi({ example: "dif/presentation-exchange/definitions@v1.0" }),
  presentationDefinition: z.object({
    id: z.string(),
    name: z.string().optional(),
    purpose: z.string().optional(),
  }).optional(),
  inputDescriptors: z.array(Descriptor),
  selection: z.record(z.string(), z.string()).optional().openapi({
    description: "Input descriptor id → stored credential id: what accept without a selection " +
      "would send (an open request is evaluated again when read); after accept, what was sent.",
  }),
  unanswerable: z.string().optional().openapi({
    description: "Why the request cannot be answered as it stands (unmet descriptor, format).",
  }),
}).openapi("ProofExchangeRecord");

/** A page of proof exchange records. */
export const ProofExchangeList = pageOf(ProofExchangeRecordSchema, "ProofExchangeList");

/** `?state=&limit=&cursor=`. */
export const ProofListQuery = stateListQuery(PROOF_STATES);
