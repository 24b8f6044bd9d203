/**
 * The receipt of issued credentials: every credential of an answer (a batch, or what a deferred
 * request brought) is verified before any is stored, an SD-JWT VC by `credentials/sd_jwt/verify.ts`,
 * a W3C JSON-LD credential (`ldp_vc`) by `ldp_receipt.ts`; the first that fails refuses them all
 * ({@link CredentialRejected}: the offer becomes `failed`, nothing stored). The credentials returned
 * are what the holder then commits with the offer's change in one atomic write, into the org's one
 * credential store (`credentials/`), whatever their format.
 *
 * This is the one place that judges a received credential: after verification its status
 * (`status/`): a revoked credential is refused, any other is stored with the status found.
 *
 * @module
 */
import type { DidResolver } from "../did/mod.ts";
import { uuidv7 } from "../kv/mod.ts";
import type { SafeFetch } from "../outbound/mod.ts";
import type { CredentialStatus, StatusService } from "../status/mod.ts";
import type { IssuedCredential } from "./issuance.ts";
import { obj } from "../base/mod.ts";
import {
  CredentialRejected,
  type CredentialStore,
  type RemoteContexts,
  type StoredCredential,
  subjectOf,
  verifySdJwtVc,
} from "../credentials/mod.ts";
import { ldpRecord, verifyLdpCredential } from "./ldp_receipt.ts";

/** What verification uses. */
export interface ReceiptDeps {
  resolver: DidResolver;
  safeFetch: SafeFetch;
  status: Pick<StatusService, "statusOf">;
  /** JSON-LD contexts that are not bundled (`JSONLD_CONTEXT_ALLOW`), for `ldp_vc` credentials. */
  contexts?: RemoteContexts;
  now: () => number;
}

/** Verified credentials of an org, not yet stored, and the status each had on receipt. */
export interface Receipt {
  orgId: string;
  /** SD-JWT VCs and W3C JSON-LD credentials (`ldp_vc`), in the order they came. */
  credentials: StoredCredential[];
  statuses: Map<string, CredentialStatus>;
}

/** Which offer the credentials came from, and what each configuration promised. */
export interface ReceiptOf {
  orgId: string;
  offerId: string;
  credentialIssuer: string;
  expectedVct: (configurationId: string) => string | undefined;
  /** The types an `ldp_vc` configuration offered (`credential_definition.type`). */
  expectedTypes?: (configurationId: string) => string[] | undefined;
}

/** The ids of a receipt's credentials, in the order they came. */
export const receiptIds = (r: Receipt): string[] => r.credentials.map((c) => c.record.id);

/** GET a JSON object (an https issuer's `jwt-vc-issuer` metadata, its JWKS); null for 404. */
async function getJson(
  safeFetch: SafeFetch,
  url: string,
): Promise<Record<string, unknown> | null> {
  let res;
  try {
    res = await safeFetch(url, {
      headers: { accept: "application/json" },
      timeoutMs: 10_000,
      maxBytes: 256 * 1024,
    });
  } catch (err) {
    throw new CredentialRejected(
      `the issuer's keys could not be fetched from ${url}: ${
        err instanceof Error ? err.message : err
      }`,
    );
  }
  if (res.status === 404) return null;
  if (res.status !== 200) {
    throw new CredentialRejected(`the issuer's keys at ${url} answered HTTP ${res.status}`);
  }
  try {
    return obj(JSON.parse(new TextDecoder().decode(res.body))) ?? null;
  } catch {
    throw new CredentialRejected(`the issuer's keys at ${url} are not JSON`);
  }
}

/** One issued credential, verified: its stored form (not yet stored). */
async function received(
  deps: ReceiptDeps,
  of: ReceiptOf,
  c: IssuedCredential,
): Promise<StoredCredential> {
  if (typeof c.credential !== "string") {
    await verifyLdpCredential(deps, c.credential, c.holder, of.expectedTypes?.(c.configurationId));
    const now = deps.now();
    return { format: "ldp_vc", record: ldpRecord(uuidv7(now), c.credential, of.offerId, now) };
  }
  const verified = await verifySdJwtVc(c.credential, {
    resolveDid: async (did) => {
      const r = await deps.resolver.resolve(did);
      return r.didDocument as Record<string, unknown> | null ??
        `${r.didResolutionMetadata.error}: ${r.didResolutionMetadata.message ?? ""}`;
    },
    getJson: (url) => getJson(deps.safeFetch, url),
    now: deps.now(),
    expectedVct: of.expectedVct(c.configurationId),
    holderKid: c.holder.kid,
    holderJwk: c.holder.publicJwk,
  });
  const now = deps.now();
  return {
    format: "dc+sd-jwt",
    record: {
      id: uuidv7(now),
      orgId: of.orgId,
      offerId: of.offerId,
      vct: verified.vct,
      issuer: verified.issuer,
      claims: verified.claims,
      compact: c.credential,
      createdAt: new Date(now).toISOString(),
    },
  };
}

/**
 * Verifies every credential of `issued` and checks its status; their records (not yet stored).
 * Throws {@link CredentialRejected} with a sentence for the offer's `errorMessage`.
 */
export async function verifyReceipt(
  deps: ReceiptDeps,
  of: ReceiptOf,
  issued: IssuedCredential[],
): Promise<Receipt> {
  const credentials: StoredCredential[] = [];
  const statuses = new Map<string, CredentialStatus>();
  for (const [i, c] of issued.entries()) {
    let credential: StoredCredential;
    let status: CredentialStatus;
    try {
      credential = await received(deps, of, c);
      // Status before it is stored: a revoked credential is refused, an unknown one kept.
      status = await deps.status.statusOf(subjectOf(credential));
      if (status.state === "revoked") {
        throw new CredentialRejected("it is revoked by its issuer (status list)");
      }
    } catch (err) {
      if (!(err instanceof CredentialRejected)) throw err;
      const which = issued.length > 1 ? ` (credential ${i + 1} of ${issued.length})` : "";
      throw new CredentialRejected(
        `The credential from ${of.credentialIssuer} failed verification${which}: ${err.message}.`,
      );
    }
    statuses.set(credential.record.id, status);
    credentials.push(credential);
  }
  return { orgId: of.orgId, credentials, statuses };
}

/**
 * Adds the credentials of a receipt to `op` (the org's one credential store, each in its format),
 * each with the status it had on receipt.
 */
export function addReceipt(
  op: Deno.AtomicOperation,
  store: Pick<CredentialStore, "add">,
  receipt: Receipt,
): void {
  for (const c of receipt.credentials) {
    store.add(op, receipt.orgId, c, receipt.statuses.get(c.record.id));
  }
}
