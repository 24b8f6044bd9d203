/**
 * The org's stored credentials, whatever brought them (Issue Credential over DIDComm, OpenID4VCI):
 * one store over the W3C (JSON-LD) and SD-JWT VC stores (`w3c_store.ts`, `sd_jwt_store.ts`, their
 * KV keys as they were). A credential is added in the caller's atomic operation with its first
 * status; reads return it with the status `status/` keeps; `presentable` is what a presentation
 * may use, by the one rule below; `subjectOf` is what the status of a stored credential is read
 * from.
 *
 * @module
 */
import { notFound } from "../base/mod.ts";
import type { Page } from "../kv/mod.ts";
import type {
  CredentialFormat,
  CredentialStatus,
  StatusService,
  StatusState,
  StatusSubject,
} from "../status/mod.ts";
import {
  addSdJwtCredential,
  listSdJwtCredentials,
  readSdJwtCredential,
  type SdJwtCredentialRecord,
  type SdJwtCredentialView,
} from "./sd_jwt_store.ts";
import {
  addW3cCredential,
  listW3cCredentials,
  readW3cCredential,
  type W3cCredentialRecord,
  type W3cCredentialView,
} from "./w3c_store.ts";

/** A stored credential in its format. */
export type StoredCredential =
  | { format: "ldp_vc"; record: W3cCredentialRecord }
  | { format: "dc+sd-jwt"; record: SdJwtCredentialRecord };

/** The record and the view (with its `status`) of each format. */
interface Formats {
  "ldp_vc": { record: W3cCredentialRecord; view: W3cCredentialView };
  "dc+sd-jwt": { record: SdJwtCredentialRecord; view: SdJwtCredentialView };
}

/** A stored credential as reads return it (its record with `status`). */
export type CredentialView<F extends CredentialFormat> = Formats[F]["view"];

/**
 * The status of a stored credential right before it is offered or presented (by default the status
 * service's `beforePresentation`: checked now, a revocation seen before standing while the list
 * cannot be read).
 */
export type PresentationCheck = (
  orgId: string,
  credential: StoredCredential,
) => Promise<StatusState>;

/** What the store is built from. */
export interface CredentialStoreDeps {
  kv: Deno.Kv;
  /** The statuses: recorded with a new credential, checked before a presentation and on demand. */
  status: Pick<StatusService, "record" | "beforePresentation" | "check">;
  /** The check before a presentation, in place of the status service's (tests of revoked ones). */
  presentationCheck?: PresentationCheck;
}

/** Credentials of each format a presentation is evaluated against, at most. */
export const MAX_PRESENTABLE_PER_FORMAT = 2000;
const PAGE = 200;
/** Status checks in flight at once while the presentable credentials are read. */
const CHECKS_AT_ONCE = 8;

/**
 * The one rule of presenting: a credential whose status is `revoked` or `suspended` is neither
 * offered nor presented; every other status (`valid`, `unknown`) is.
 */
export function presentableStatus(state: StatusState): boolean {
  return state !== "revoked" && state !== "suspended";
}

/** What the status of a stored credential is read from (the one mapper to a status subject). */
export function subjectOf(c: StoredCredential): StatusSubject {
  return c.format === "ldp_vc"
    ? { format: "ldp_vc", credential: c.record.credential }
    : { format: "dc+sd-jwt", compact: c.record.compact };
}

const NAMES: Record<CredentialFormat, string> = { "ldp_vc": "W3C", "dc+sd-jwt": "SD-JWT" };

/** The org's stored credentials. */
export class CredentialStore {
  readonly #d: CredentialStoreDeps;
  readonly #check: PresentationCheck;

  constructor(deps: CredentialStoreDeps) {
    this.#d = deps;
    this.#check = deps.presentationCheck ??
      (async (orgId, c) =>
        (await deps.status.beforePresentation(orgId, c.record.id, subjectOf(c))).state);
  }

  /** Adds a new credential of `orgId` to `op`, with its first status when it has one. */
  add(
    op: Deno.AtomicOperation,
    orgId: string,
    credential: StoredCredential,
    status?: CredentialStatus,
  ): void {
    if (credential.format === "ldp_vc") addW3cCredential(op, orgId, credential.record);
    else addSdJwtCredential(op, credential.record);
    if (status) {
      this.#d.status.record(op, {
        orgId,
        id: credential.record.id,
        subject: subjectOf(credential),
        status,
      });
    }
  }

  /** One stored credential of the org with its status; 404 when it has none of that format. */
  async get<F extends CredentialFormat>(
    orgId: string,
    format: F,
    id: string,
  ): Promise<CredentialView<F>> {
    const found = format === "ldp_vc"
      ? await readW3cCredential(this.#d.kv, orgId, id)
      : await readSdJwtCredential(this.#d.kv, orgId, id);
    if (!found) {
      throw notFound(`No ${NAMES[format]} credential "${id}" exists in organization "${orgId}".`);
    }
    return found as CredentialView<F>;
  }

  /** One page of the org's stored credentials of `format`, newest first, with their statuses. */
  list<F extends CredentialFormat>(
    orgId: string,
    format: F,
    q: { limit: number; cursor?: string },
  ): Promise<Page<CredentialView<F>>> {
    return (format === "ldp_vc"
      ? listW3cCredentials(this.#d.kv, orgId, q)
      : listSdJwtCredentials(this.#d.kv, orgId, q)) as Promise<Page<CredentialView<F>>>;
  }

  /**
   * Checks a stored credential's status now (a list older than its `ttl` is fetched again),
   * keeps it and returns the credential with it; 404 when the org has no such credential.
   */
  async checkStatus<F extends CredentialFormat>(
    orgId: string,
    format: F,
    id: string,
  ): Promise<CredentialView<F>> {
    const view = await this.get(orgId, format, id);
    const subject = subjectOf({ format, record: view } as StoredCredential);
    return { ...view, status: await this.#d.status.check(orgId, id, subject) };
  }

  /**
   * What a presentation may use: the org's credentials of `formats` (each format newest first, at
   * most {@link MAX_PRESENTABLE_PER_FORMAT}), without those whose status, checked now, is not
   * presentable ({@link presentableStatus}).
   */
  async presentable(
    orgId: string,
    formats: readonly CredentialFormat[] = ["dc+sd-jwt", "ldp_vc"],
  ): Promise<StoredCredential[]> {
    const stored: StoredCredential[] = [];
    for (const format of formats) {
      let cursor: string | undefined;
      let n = 0;
      do {
        const page = await this.list(orgId, format, { limit: PAGE, cursor });
        for (const record of page.data) stored.push({ format, record } as StoredCredential);
        n += page.data.length;
        cursor = page.nextCursor ?? undefined;
      } while (cursor && n < MAX_PRESENTABLE_PER_FORMAT);
    }
    const keep: boolean[] = [];
    for (let i = 0; i < stored.length; i += CHECKS_AT_ONCE) {
      const batch = stored.slice(i, i + CHECKS_AT_ONCE);
      keep.push(
        ...await Promise.all(
          batch.map(async (c) => presentableStatus(await this.#check(orgId, c))),
        ),
      );
    }
    return stored.filter((_, i) => keep[i]);
  }
}
