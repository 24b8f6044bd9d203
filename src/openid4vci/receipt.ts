/**
 * The receipt of issued credentials: every SD-JWT VC of an answer (a batch, or what a deferred
 * request brought) is verified (`credentials/sd_jwt/verify.ts`) before any is stored; the first that fails refuses
 * them all ({@link CredentialRejected}: the offer becomes `failed`, nothing stored). The records
 * returned are what the holder then commits with the offer's change in one atomic write.
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
  type SdJwtCredentialRecord,
  type StoredCredential,
  subjectOf,
  verifySdJwtVc,
} from "../credentials/mod.ts";

/** What verification uses. */
export interface ReceiptDeps {
  resolver: DidResolver;
  safeFetch: SafeFetch;
  status: Pick<StatusService, "statusOf">;
  now: () => number;
}

/** Verified credentials, not yet stored, and the status each had on receipt. */
export interface Receipt {
  records: SdJwtCredentialRecord[];
  statuses: Map<string, CredentialStatus>;
}

/** Which offer the credentials came from, and the `vct` each configuration promised. */
export interface ReceiptOf {
  orgId: string;
  offerId: string;
  credentialIssuer: string;
  expectedVct: (configurationId: string) => string | undefined;
}

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

/**
 * Verifies every credential of `issued` and checks its status; their records (not yet stored).
 * Throws {@link CredentialRejected} with a sentence for the offer's `errorMessage`.
 */
export async function verifyReceipt(
  deps: ReceiptDeps,
  of: ReceiptOf,
  issued: IssuedCredential[],
): Promise<Receipt> {
  const out: SdJwtCredentialRecord[] = [];
  const statuses = new Map<string, CredentialStatus>();
  for (const [i, c] of issued.entries()) {
    let received: StoredCredential & { format: "dc+sd-jwt" };
    let status: CredentialStatus;
    try {
      const verified = await verifySdJwtVc(c.compact, {
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
      received = {
        format: "dc+sd-jwt",
        record: {
          id: uuidv7(now),
          orgId: of.orgId,
          offerId: of.offerId,
          vct: verified.vct,
          issuer: verified.issuer,
          claims: verified.claims,
          compact: c.compact,
          createdAt: new Date(now).toISOString(),
        },
      };
      // Status before it is stored: a revoked credential is refused, an unknown one kept.
      status = await deps.status.statusOf(subjectOf(received));
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
    statuses.set(received.record.id, status);
    out.push(received.record);
  }
  return { records: out, statuses };
}

/** Adds the credentials of a receipt to `op`, each with the status it had on receipt. */
export function addReceipt(
  op: Deno.AtomicOperation,
  credentials: Pick<CredentialStore, "add">,
  receipt: Receipt,
): void {
  for (const record of receipt.records) {
    credentials.add(
      op,
      record.orgId,
      { format: "dc+sd-jwt", record },
      receipt.statuses.get(record.id),
    );
  }
}
