/**
 * The org's stored credentials a presentation can use, read through the features that store them
 * (the OpenID4VCI holder's SD-JWT VCs, the DIDComm holder's W3C credentials), never another org's.
 * A credential whose recorded status (`status` on the stored record, kept by `status/`) is
 * `revoked` or `suspended` is never offered.
 *
 * @module
 */
import { type W3cCredentialRecord } from "../issue_credential/mod.ts";
import { createDocumentLoader, type RemoteContexts } from "../credentials/mod.ts";
import type { Page } from "../kv/mod.ts";
import type { SdJwtCredentialRecord } from "../openid4vci/mod.ts";
import type { Candidate } from "./dcql_match.ts";
import { ldpTypes } from "../credentials/mod.ts";

/** A stored credential that can be presented. */
export interface PresentableCredential extends Candidate {
  /** SD-JWT VC: the SD-JWT as received. */
  compact?: string;
  /** The status recorded with it (the last check). */
  status?: { state: string; message?: string };
}

/** Lists an org's presentable credentials. */
export type CredentialSource = (orgId: string) => Promise<PresentableCredential[]>;

/** The pages of stored credentials the source reads. */
export interface StoredCredentialLists {
  sdJwt: (orgId: string, q: { limit: number; cursor?: string }) => Promise<
    Page<SdJwtCredentialRecord>
  >;
  w3c: (orgId: string, q: { limit: number; cursor?: string }) => Promise<Page<W3cCredentialRecord>>;
}

const PAGE = 200;
/** A presentation request is evaluated against at most this many credentials of each format. */
const MAX_PER_FORMAT = 2000;

/** The status recorded with a stored credential, if any. */
function recorded(record: unknown): PresentableCredential["status"] {
  const s = (record as { status?: { state?: unknown; message?: unknown } }).status;
  if (typeof s?.state !== "string") return undefined;
  return { state: s.state, ...(typeof s.message === "string" ? { message: s.message } : {}) };
}

/** `revoked` and `suspended` credentials are never presented. */
export function usable(status: PresentableCredential["status"]): boolean {
  return status?.state !== "revoked" && status?.state !== "suspended";
}

async function all<T>(
  list: (q: { limit: number; cursor?: string }) => Promise<Page<T>>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ limit: PAGE, cursor });
    out.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && out.length < MAX_PER_FORMAT);
  return out;
}

/**
 * The source over the two stores. `contexts`: the JSON-LD contexts kept under
 * `JSONLD_CONTEXT_ALLOW`, for the types of credentials on contexts the service does not bundle.
 */
export function credentialSource(
  lists: StoredCredentialLists,
  contexts?: RemoteContexts,
): CredentialSource {
  const loader = createDocumentLoader({ remote: contexts });
  return async (orgId) => {
    const [sdJwt, w3c] = await Promise.all([
      all((q) => lists.sdJwt(orgId, q)),
      all((q) => lists.w3c(orgId, q)),
    ]);
    const out: PresentableCredential[] = [];
    for (const c of sdJwt) {
      const status = recorded(c);
      if (!usable(status)) continue;
      out.push({
        id: c.id,
        format: "dc+sd-jwt",
        createdAt: c.createdAt,
        vct: c.vct,
        claims: c.claims,
        compact: c.compact,
        ...(status ? { status } : {}),
      });
    }
    for (const c of w3c) {
      const status = recorded(c);
      if (!usable(status)) continue;
      const types = await ldpTypes(`${orgId}/${c.id}`, c.credential, loader);
      out.push({
        id: c.id,
        format: "ldp_vc",
        createdAt: c.createdAt,
        types,
        claims: c.credential,
        ...(status ? { status } : {}),
      });
    }
    return out;
  };
}
