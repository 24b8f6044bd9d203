/**
 * The receipt of a W3C JSON-LD credential (`ldp_vc`) over OpenID4VCI: verified as a credential from
 * DIDComm is (`credentials/`' `verifyCredential`: Ed25519 2018/2020 or Data Integrity proofs,
 * VC 1.1 and 2.0, the issuer rule), then bound to the proof of possession: OpenID4VCI binds an
 * `ldp_vc` to the holder's DID as its `credentialSubject.id`, so the subject must be the DID the
 * proof named; and it must be of the types the configuration offered
 * (`credential_definition.type`). Stored in the org's W3C credential store, like a credential from
 * Issue Credential 2.0, with the offer as the exchange that brought it (no connection).
 *
 * @module
 */
import {
  CredentialRejected,
  newW3cRecord,
  type RemoteContexts,
  resolveDidWith,
  verifyCredential,
  type W3cCredentialRecord,
} from "../credentials/mod.ts";
import { isObject, obj } from "../base/mod.ts";
import type { DidResolver } from "../did/mod.ts";
import type { HolderBinding } from "./proof_key.ts";

type Json = Record<string, unknown>;
const list = (v: unknown): unknown[] => Array.isArray(v) ? v : v === undefined ? [] : [v];

/** What an `ldp_vc` receipt uses. */
export interface LdpReceiptDeps {
  resolver: DidResolver;
  /** Contexts that are not bundled (`JSONLD_CONTEXT_ALLOW`). */
  contexts?: RemoteContexts;
  now: () => number;
}

/**
 * Verifies an issued `ldp_vc` credential for the holder key `holder`, expecting the types
 * `expectedTypes` (the configuration's `credential_definition.type`, when it names them). Throws
 * {@link CredentialRejected} with the reason.
 */
export async function verifyLdpCredential(
  deps: LdpReceiptDeps,
  credential: Json,
  holder: HolderBinding,
  expectedTypes: readonly string[] | undefined,
): Promise<void> {
  const result = await verifyCredential(credential, {
    resolveDid: resolveDidWith(deps.resolver),
    contexts: deps.contexts,
    now: new Date(deps.now()),
  });
  if (!result.verified) throw new CredentialRejected(`its proof does not verify (${result.error})`);
  const holderDid = holder.kid?.split("#")[0];
  if (!holderDid) {
    throw new CredentialRejected(
      "an ldp_vc credential is bound to its holder's DID (credentialSubject.id), and the proof of possession named no DID",
    );
  }
  const subjects = list(credential.credentialSubject).map((s) => isObject(s) ? s.id : undefined);
  if (!subjects.includes(holderDid)) {
    throw new CredentialRejected(
      `it is not bound to the org's key: its credentialSubject.id is ${
        subjects.map(String).join(", ") || "missing"
      }, and the proof of possession named ${holderDid}`,
    );
  }
  const types = list(credential.type).map(String);
  const missing = (expectedTypes ?? []).filter((t) => !types.includes(t));
  if (missing.length > 0) {
    throw new CredentialRejected(
      `its type (${types.join(", ")}) lacks ${missing.join(", ")}, which the offer named`,
    );
  }
}

/** The stored form of a verified `ldp_vc` credential of offer `offerId`. */
export function ldpRecord(
  id: string,
  credential: Json,
  offerId: string,
  now: number,
): W3cCredentialRecord {
  return newW3cRecord({ id, credential, exchange: { id: offerId, connectionId: "" }, now });
}

/** The types an `ldp_vc` configuration offers (`credential_definition.type`), when it names any. */
export function offeredTypes(config: Json | undefined): string[] | undefined {
  const types = obj(config?.credential_definition)?.type;
  return Array.isArray(types) ? types.map(String) : undefined;
}
