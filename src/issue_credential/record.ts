/**
 * The credential exchange record (Credo's `CredentialExchangeRecord` JSON) and its state machine
 * for the holder role of Issue Credential 2.0 (Aries RFC 0453).
 *
 * @module
 */

/** Every state of an exchange (CONTRACT.md "Credential exchange (holder)"). */
export const CREDENTIAL_STATES = [
  "proposal-sent",
  "proposal-received",
  "offer-sent",
  "offer-received",
  "declined",
  "request-sent",
  "request-received",
  "credential-issued",
  "credential-received",
  "done",
  "abandoned",
] as const;

/** One of {@link CREDENTIAL_STATES}. */
export type CredentialState = typeof CREDENTIAL_STATES[number];

/** States an exchange never leaves. */
export const FINAL_STATES: readonly CredentialState[] = ["done", "declined", "abandoned"];

/** A credential preview attribute (RFC 0453 `credential_preview.attributes[]`). */
export interface CredentialAttribute {
  "mime-type"?: string;
  name: string;
  value: string;
}

/** A credential held by the record: W3C credentials live at `keys.w3cCredential(orgId, id)`. */
export interface CredentialRecordBinding {
  credentialRecordType: "w3c";
  credentialRecordId: string;
}

/** The exchange record as callers and webhooks see it. */
export interface CredentialExchangeRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  state: CredentialState;
  role: "holder" | "issuer";
  connectionId: string;
  threadId: string;
  protocolVersion: "v2";
  credentialAttributes: CredentialAttribute[];
  credentials: CredentialRecordBinding[];
  metadata: Record<string, Record<string, unknown>>;
  _tags: { state: CredentialState; threadId: string; connectionId: string };
  errorMessage?: string;
}

/** The format data of one exchange, kept beside the record (never returned by the API). */
export interface ExchangeFormatData {
  /** The attachment format of the offer (`aries/ld-proof-vc-detail@v1.0`, or an unsupported one). */
  offerFormat: string;
  /** Decoded offer attachment (`{credential, options}` for JSON-LD). */
  offer?: Record<string, unknown>;
  /** Decoded request attachment we sent. */
  request?: Record<string, unknown>;
  /** `@id` of the offer message. */
  offerMessageId: string;
}

/** What is stored at `keys.credential(orgId, id)`. */
export interface StoredExchange {
  orgId: string;
  record: CredentialExchangeRecord;
  format: ExchangeFormatData;
}

/** Builds a new holder record in `state`. */
export function newHolderRecord(input: {
  id: string;
  connectionId: string;
  threadId: string;
  state: CredentialState;
  credentialAttributes: CredentialAttribute[];
  metadata: Record<string, Record<string, unknown>>;
  errorMessage?: string;
  now: number;
}): CredentialExchangeRecord {
  const at = new Date(input.now).toISOString();
  return {
    id: input.id,
    createdAt: at,
    updatedAt: at,
    state: input.state,
    role: "holder",
    connectionId: input.connectionId,
    threadId: input.threadId,
    protocolVersion: "v2",
    credentialAttributes: input.credentialAttributes,
    credentials: [],
    metadata: input.metadata,
    _tags: { state: input.state, threadId: input.threadId, connectionId: input.connectionId },
    ...(input.errorMessage !== undefined ? { errorMessage: input.errorMessage } : {}),
  };
}

/** A copy of `record` in `state` with current `_tags` and `updatedAt`, plus `changes`. */
export function withState(
  record: CredentialExchangeRecord,
  state: CredentialState,
  now: number,
  changes: Partial<Pick<CredentialExchangeRecord, "credentials" | "errorMessage">> = {},
): CredentialExchangeRecord {
  return {
    ...record,
    ...changes,
    state,
    updatedAt: new Date(now).toISOString(),
    _tags: { state, threadId: record.threadId, connectionId: record.connectionId },
  };
}
