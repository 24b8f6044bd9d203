/**
 * The status of a stored credential and what is checked to find it (CONTRACT.md "Credentials from
 * real issuers: status and contexts").
 *
 * @module
 */

/** The answer of a status check. */
export type StatusState = "valid" | "revoked" | "suspended" | "unknown";

/** A credential's status as records show it (top-level `status`). */
export interface CredentialStatus {
  state: StatusState;
  /** When it was checked (ISO 8601). */
  checkedAt: string;
  /** Why, for `unknown` (no status entry; list unreachable or not verifiable) and others. */
  message?: string;
}

/** The credential formats whose status is checked. */
export type CredentialFormat = "ldp_vc" | "dc+sd-jwt";

/** A credential as received: what its status is read from. */
export type StatusSubject =
  | { format: "ldp_vc"; credential: Record<string, unknown> }
  | { format: "dc+sd-jwt"; compact: string };

/**
 * What a status check needs of a credential, kept with its status so that later checks need not
 * read the credential: the issuer and its status entries.
 */
export type StatusTarget =
  | {
    format: "ldp_vc";
    issuer: string;
    /** The `credentialStatus` entries as signed (objects only). */
    entries: Record<string, unknown>[];
  }
  | {
    format: "dc+sd-jwt";
    issuer: string;
    /** `status.status_list` of the signed payload, when there is one. */
    reference?: { idx: number; uri: string };
    /** Why the payload's `status` cannot be used, when it is malformed. */
    problem?: string;
  };
