/**
 * The OpenID4VCI holder service: receives credential offers, accepts them with the
 * pre-authorized code flow (token, nonce, a proof of possession signed by the org's wallet key,
 * the credential), verifies the SD-JWT VC and stores it, or declines them. Records, stored
 * credentials and `credential.state_changed` events commit together.
 *
 * @module
 */
import * as jose from "jose";
import type { Wallet } from "../agents/mod.ts";
import { b64u, type SecretBox, verkeyToDidKey } from "../crypto/mod.ts";
import type { DidResolver } from "../did/mod.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { commitOrConflict, keys, type Page, uuidv7 } from "../kv/mod.ts";
import type { SafeFetch } from "../outbound/mod.ts";
import type { Dispatcher } from "../outbox/mod.ts";
import type { CredentialStatus, StatusService } from "../status/mod.ts";
import { IssuerHttp } from "./issuer_http.ts";
import { loadIssuerProfile, loadOffer, parseOffer, PRE_AUTHORIZED_GRANT } from "./offer.ts";
import { type ProofKey, requestCredentials } from "./issuance.ts";
import {
  offerCodeAad,
  type OfferRecord,
  type OfferState,
  type SdJwtCredentialRecord,
  type SdJwtCredentialView,
  type StoredOffer,
} from "./record.ts";
import { CredentialRejected, verifySdJwtVc } from "./sd_jwt.ts";
import {
  addCredential,
  addNewOffer,
  addOfferUpdate,
  listCredentials,
  listOffers,
  readCredential,
  readOffer,
} from "./store.ts";

/** What the holder uses. */
export interface Oid4vcHolderDeps {
  kv: Deno.Kv;
  secrets: SecretBox;
  safeFetch: SafeFetch;
  wallet: Wallet;
  resolver: DidResolver;
  dispatcher: Dispatcher;
  now: () => number;
  /** Credential status: checked before a credential is stored, recorded with it. */
  status: StatusService;
}

const ACCEPT_LEASE_MS = 60_000;

/** The OpenID4VCI holder of every configured org. */
export class Oid4vcHolder {
  readonly #d: Oid4vcHolderDeps;
  readonly #http: IssuerHttp;

  constructor(deps: Oid4vcHolderDeps) {
    this.#d = deps;
    this.#http = new IssuerHttp(deps.safeFetch);
  }

  async #requireAgent(orgId: string) {
    const agent = await this.#d.wallet.identity(orgId);
    if (!agent) {
      throw conflict(
        `Organization "${orgId}" has no configured agent; configure one first (POST /orgs/${orgId}/agents/configure): its wallet holds the proof key.`,
      );
    }
    return agent;
  }

  /** Reads the offer URI, the offer and the issuer's metadata; stores an `offer-received` record. */
  async receiveOffer(orgId: string, uri: string): Promise<OfferRecord> {
    await this.#requireAgent(orgId);
    const offer = parseOffer(await loadOffer(uri, this.#http));
    const profile = await loadIssuerProfile(offer, this.#http);
    const now = this.#d.now();
    const id = uuidv7(now);
    const at = new Date(now).toISOString();
    const record: OfferRecord = {
      id,
      orgId,
      state: "offer-received",
      credentialIssuer: offer.credentialIssuer,
      credentialConfigurationIds: offer.credentialConfigurationIds,
      ...(profile.issuerName ? { issuerName: profile.issuerName } : {}),
      txCodeRequired: offer.txCodeRequired,
      credentialIds: [],
      createdAt: at,
      updatedAt: at,
    };
    const stored: StoredOffer = {
      record,
      sealedCode: await this.#d.secrets.seal(offer.preAuthorizedCode, offerCodeAad(orgId, id)),
      legacyUserPin: offer.legacyUserPin,
      profile,
    };
    const op = this.#d.kv.atomic();
    addNewOffer(op, stored, now);
    await commitOrConflict(op);
    this.#d.dispatcher.wake();
    return record;
  }

  async #entry(orgId: string, id: string): Promise<Deno.KvEntry<StoredOffer>> {
    const entry = await readOffer(this.#d.kv, orgId, id);
    if (!entry) throw notFound(`No credential offer "${id}" exists in organization "${orgId}".`);
    return entry;
  }

  static #mustBeOpen(entry: Deno.KvEntry<StoredOffer>): void {
    const { id, state } = entry.value.record;
    if (state !== "offer-received") {
      throw conflict(
        `Credential offer "${id}" is in state "${state}"; it must be "offer-received".`,
      );
    }
  }

  async #commitState(
    entry: Deno.KvEntry<StoredOffer>,
    change: Partial<OfferRecord> & { state: OfferState },
    credentials: SdJwtCredentialRecord[] = [],
    statuses = new Map<string, CredentialStatus>(),
  ): Promise<OfferRecord> {
    const now = this.#d.now();
    const next: StoredOffer = {
      ...entry.value,
      record: { ...entry.value.record, ...change, updatedAt: new Date(now).toISOString() },
    };
    const op = this.#d.kv.atomic();
    addOfferUpdate(op, entry, next, now);
    for (const c of credentials) {
      addCredential(op, c);
      const status = statuses.get(c.id);
      if (status) {
        this.#d.status.record(op, {
          orgId: c.orgId,
          id: c.id,
          subject: { format: "dc+sd-jwt", compact: c.compact },
          status,
        });
      }
    }
    await commitOrConflict(
      op,
      `Credential offer "${next.record.id}" was changed by another request; read it again.`,
    );
    this.#d.dispatcher.wake();
    return next.record;
  }

  /** Declines an offer: nothing is sent to the issuer. */
  async decline(orgId: string, id: string): Promise<OfferRecord> {
    const entry = await this.#entry(orgId, id);
    Oid4vcHolder.#mustBeOpen(entry);
    return await this.#commitState(entry, { state: "declined" });
  }

  /**
   * Accepts an offer: token, nonce, proof, credential, verification, storage. An issuer that
   * cannot be reached or refuses throws (502) and leaves the record as it was; a credential that
   * fails verification makes the record `failed` with nothing stored.
   */
  async accept(orgId: string, id: string, opts: { txCode?: string } = {}): Promise<OfferRecord> {
    const agent = await this.#requireAgent(orgId);
    let entry = await this.#entry(orgId, id);
    Oid4vcHolder.#mustBeOpen(entry);
    const { record, profile } = entry.value;
    if (record.txCodeRequired && !opts.txCode) {
      throw badRequest(
        `Credential offer "${id}" needs the transaction code (txCode) the issuer gave you.`,
      );
    }
    if (!record.txCodeRequired && opts.txCode !== undefined) {
      throw badRequest(`Credential offer "${id}" asks for no transaction code; leave txCode out.`);
    }
    const release = await this.#lease(orgId, id);
    try {
      const code = await this.#d.secrets.openString(
        entry.value.sealedCode,
        offerCodeAad(orgId, id),
      );
      const token = await this.#http.post("token", profile.tokenEndpoint, {
        form: {
          grant_type: PRE_AUTHORIZED_GRANT,
          "pre-authorized_code": code,
          ...(opts.txCode === undefined
            ? {}
            : entry.value.legacyUserPin
            ? { user_pin: opts.txCode }
            : { tx_code: opts.txCode }),
        },
      });
      const key = await this.#proofKey(orgId, agent.keyId);
      let issued: { configurationId: string; compact: string }[];
      try {
        issued = await requestCredentials(this.#http, profile, token, key, this.#d.now);
      } catch (err) {
        if (!(err instanceof CredentialRejected)) throw err;
        return await this.#commitState(entry, { state: "failed", errorMessage: err.message });
      }
      const credentials: SdJwtCredentialRecord[] = [];
      const statuses = new Map<string, CredentialStatus>();
      try {
        for (const c of issued) {
          const verified = await verifySdJwtVc(c.compact, {
            resolveDid: async (did) => {
              const r = await this.#d.resolver.resolve(did);
              return r.didDocument as Record<string, unknown> | null ??
                `${r.didResolutionMetadata.error}: ${r.didResolutionMetadata.message ?? ""}`;
            },
            getJson: (url) => this.#http.getJson("jwt-vc-issuer metadata", url),
            now: this.#d.now(),
            expectedVct: profile.configurations[c.configurationId]?.vct,
            holderKid: key.kid,
            holderJwk: key.publicJwk,
          });
          // Status before it is stored: a revoked credential is refused, an unknown one kept.
          const status = await this.#d.status.statusOf({ format: "dc+sd-jwt", compact: c.compact });
          if (status.state === "revoked") {
            throw new CredentialRejected("it is revoked by its issuer (status list)");
          }
          const now = this.#d.now();
          const credentialId = uuidv7(now);
          statuses.set(credentialId, status);
          credentials.push({
            id: credentialId,
            orgId,
            offerId: id,
            vct: verified.vct,
            issuer: verified.issuer,
            claims: verified.claims,
            compact: c.compact,
            createdAt: new Date(now).toISOString(),
          });
        }
      } catch (err) {
        if (!(err instanceof CredentialRejected)) throw err;
        return await this.#commitState(entry, {
          state: "failed",
          errorMessage:
            `The credential from ${record.credentialIssuer} failed verification: ${err.message}.`,
        });
      }
      entry = await this.#entry(orgId, id);
      Oid4vcHolder.#mustBeOpen(entry);
      return await this.#commitState(
        entry,
        { state: "done", credentialIds: credentials.map((c) => c.id) },
        credentials,
        statuses,
      );
    } finally {
      await release();
    }
  }

  /** Takes the accept lease of an offer (409 while another accept holds it). */
  async #lease(orgId: string, id: string): Promise<() => Promise<void>> {
    const key = keys.oid4vcAccepting(orgId, id);
    const now = this.#d.now();
    const held = await this.#d.kv.get<{ until: number }>(key);
    if (held.value && held.value.until > now) {
      throw conflict(`Credential offer "${id}" is being accepted by another request.`);
    }
    const res = await this.#d.kv.atomic().check(held)
      .set(key, { until: now + ACCEPT_LEASE_MS }, { expireIn: ACCEPT_LEASE_MS * 2 }).commit();
    if (!res.ok) throw conflict(`Credential offer "${id}" is being accepted by another request.`);
    return async () => {
      await this.#d.kv.atomic().check({ key, versionstamp: res.versionstamp }).delete(key).commit();
    };
  }

  /** The org's agent key as the proof key (did:key URL, public JWK, private key). */
  async #proofKey(orgId: string, keyId: string): Promise<ProofKey> {
    const key = await this.#d.wallet.openKey(orgId, keyId);
    if (!key) {
      throw conflict(
        `The agent key of organization "${orgId}" is not available; configure the agent again.`,
      );
    }
    const did = verkeyToDidKey(key.verkey);
    const publicJwk = { kty: "OKP", crv: "Ed25519", x: b64u(key.publicKey) };
    const privateKey = await jose.importJWK(
      { ...publicJwk, d: b64u(key.secretKey.slice(0, 32)) },
      "EdDSA",
    );
    return { kid: `${did}#${did.slice("did:key:".length)}`, publicJwk, privateKey };
  }

  /** One offer of the org. */
  async get(orgId: string, id: string): Promise<OfferRecord> {
    return (await this.#entry(orgId, id)).value.record;
  }

  /** A page of the org's offers, newest first. */
  list(
    orgId: string,
    q: { limit: number; cursor?: string; state?: OfferState },
  ): Promise<Page<OfferRecord>> {
    return listOffers(this.#d.kv, orgId, q);
  }

  /** One stored SD-JWT VC of the org. */
  async credential(orgId: string, id: string): Promise<SdJwtCredentialView> {
    const c = await readCredential(this.#d.kv, orgId, id);
    if (!c) throw notFound(`No SD-JWT credential "${id}" exists in organization "${orgId}".`);
    return c;
  }

  /** A page of the org's stored SD-JWT VCs, newest first. */
  credentials(
    orgId: string,
    q: { limit: number; cursor?: string },
  ): Promise<Page<SdJwtCredentialView>> {
    return listCredentials(this.#d.kv, orgId, q);
  }
}
