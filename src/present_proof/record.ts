/**
 * The proof exchange record (Credo's `ProofExchangeRecord` JSON) of the prover role of Present
 * Proof 2.0 (Aries RFC 0454), plus what a person needs to decide: the verifier, the request's
 * format and, per input descriptor, which stored credentials match and which fields each would
 * carry.
 *
 * @module
 */

/** Every state of a prover's exchange (CONTRACT.md "Present Proof 2.0 (DIDComm, holder)"). */
export const PROOF_STATES = [
  "request-received",
  "presentation-sent",
  "done",
  "declined",
  "abandoned",
] as const;

/** One of {@link PROOF_STATES}. */
export type ProofState = typeof PROOF_STATES[number];

/** States an exchange never leaves. */
export const FINAL_PROOF_STATES: readonly ProofState[] = ["done", "declined", "abandoned"];

/** A stored credential that satisfies an input descriptor, and what the answer would carry. */
export interface DescriptorMatch {
  /** The stored W3C credential (`GET /orgs/{orgId}/w3c-credentials/{id}`). */
  credentialId: string;
  /** Its format (the same field as the OpenID4VP holder's matches). */
  format: "ldp_vc";
  /**
   * Claim paths the presentation would disclose: every claim of the credential, since a JSON-LD
   * credential signed with an Ed25519 suite is presented whole (no selective disclosure).
   */
  disclosedClaims: string[][];
}

/** One input descriptor of the request as evaluated against the org's credentials. */
export interface DescriptorView {
  id: string;
  name?: string;
  purpose?: string;
  /** `group` of the descriptor (for `submission_requirements`). */
  group?: string[];
  /** The JSONPaths of the descriptor's fields (first path of each field). */
  requestedFields: string[];
  /** Matching stored credentials, newest first (at most {@link MAX_MATCHES}). */
  matches: DescriptorMatch[];
}

/** Matches kept per descriptor in the record. */
export const MAX_MATCHES = 20;

/** The exchange record as callers and webhooks see it. */
export interface ProofExchangeRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  state: ProofState;
  role: "prover";
  connectionId: string;
  threadId: string;
  protocolVersion: "v2";
  metadata: Record<string, Record<string, unknown>>;
  _tags: { state: ProofState; threadId: string; connectionId: string; role: "prover" };
  errorMessage?: string;
  /** Who asks: the connection and its label (as the verifier gave it in the handshake). */
  verifier: { connectionId: string; label: string | null };
  /** The request's attachment format(s), e.g. `dif/presentation-exchange/definitions@v1.0`. */
  requestFormat: string;
  /** The presentation definition's id, name and purpose (DIF PE requests only). */
  presentationDefinition?: { id: string; name?: string; purpose?: string };
  /** The input descriptors with their matches (empty for a format this service cannot answer). */
  inputDescriptors: DescriptorView[];
  /**
   * Input descriptor id → stored credential id: what accept without a `selection` would send (an
   * open request is evaluated again when read); after accept, what was sent.
   */
  selection?: Record<string, string>;
  /** Why the request cannot be answered as it stands (unmet descriptor, format), if it cannot. */
  unanswerable?: string;
}

/** Where the request came from, kept beside the record (never returned by the API). */
export interface ProofRequestData {
  /** `@id` of the request message. */
  requestMessageId: string;
  /** True when the request is a DIF PE request this service can answer. */
  answerable: boolean;
}

/** What is stored at `keys.proof(orgId, id)`. */
export interface StoredProof {
  orgId: string;
  record: ProofExchangeRecord;
  request: ProofRequestData;
}

/** Builds a new prover record in `state`. */
export function newProverRecord(input: {
  id: string;
  connectionId: string;
  threadId: string;
  state: ProofState;
  verifierLabel: string | null;
  requestFormat: string;
  presentationDefinition?: ProofExchangeRecord["presentationDefinition"];
  inputDescriptors: DescriptorView[];
  selection?: Record<string, string>;
  unanswerable?: string;
  errorMessage?: string;
  now: number;
}): ProofExchangeRecord {
  const at = new Date(input.now).toISOString();
  const { connectionId, threadId, state } = input;
  return {
    id: input.id,
    createdAt: at,
    updatedAt: at,
    state,
    role: "prover",
    connectionId,
    threadId,
    protocolVersion: "v2",
    metadata: {},
    _tags: { state, threadId, connectionId, role: "prover" },
    ...(input.errorMessage !== undefined ? { errorMessage: input.errorMessage } : {}),
    verifier: { connectionId, label: input.verifierLabel },
    requestFormat: input.requestFormat,
    ...(input.presentationDefinition
      ? { presentationDefinition: input.presentationDefinition }
      : {}),
    inputDescriptors: input.inputDescriptors,
    ...(input.selection ? { selection: input.selection } : {}),
    ...(input.unanswerable ? { unanswerable: input.unanswerable } : {}),
  };
}

/** A copy of `record` in `state` with current `_tags` and `updatedAt`, plus `changes`. */
export function withProofState(
  record: ProofExchangeRecord,
  state: ProofState,
  now: number,
  changes: Partial<Pick<ProofExchangeRecord, "errorMessage" | "selection">> = {},
): ProofExchangeRecord {
  return {
    ...record,
    ...changes,
    state,
    updatedAt: new Date(now).toISOString(),
    _tags: { state, threadId: record.threadId, connectionId: record.connectionId, role: "prover" },
  };
}

/** What an evaluation says about a request: its descriptors' matches, the selection or why not. */
export interface MatchesNow {
  descriptors: DescriptorView[];
  selection?: Record<string, string>;
  unmet?: string;
}

/** `record` with the matches, `selection` and `unanswerable` of an evaluation made now. */
export function withMatches(record: ProofExchangeRecord, now: MatchesNow): ProofExchangeRecord {
  const { selection: _selection, unanswerable: _unanswerable, ...rest } = record;
  return {
    ...rest,
    inputDescriptors: now.descriptors,
    ...(now.selection ? { selection: now.selection } : {}),
    ...(now.unmet ? { unanswerable: now.unmet } : {}),
  };
}
