/**
 * The OpenID4VCI holder service: receives credential offers, accepts them with the
 * pre-authorized code flow (`@openid4vc/openid4vci`: token, nonce, proofs of possession signed by
 * the org's wallet keys, the credentials), verifies every SD-JWT VC and W3C JSON-LD credential
 * (`ldp_vc`) and stores them in the org's credential store, or declines them. A deferred issuance
 * leaves the offer `deferred` and is polled to its end (`deferred.ts`).
 * Records, stored credentials, the next poll and `credential.state_changed` events commit
 * together.
 *
 * @module
 */
import type { CredentialOfferObject, IssuerMetadataResult } from "@openid4vc/openid4vci";
import type { Wallet } from "../agents/mod.ts";
import { badRequest, conflict, notFound, wrongState } from "../base/mod.ts";
import { atomicUpdate, keys, type Page, uuidv7, withLease } from "../kv/mod.ts";
import { issuerClient } from "./client.ts";
import { addPoll, clampInterval, GIVE_UP_MS, typesOf, vctOf } from "./deferred.ts";
import type { DeferredDeps } from "./deferred_poll.ts";
import { type Issuance, redeemOffer } from "./issuance.ts";
import { issuerFailure } from "./issuer_fetch.ts";
import { loadOid4vcLibraries, type Oid4vcLibraries } from "./library.ts";
import { offerWithCode, PRE_AUTHORIZED_GRANT, receiveOffer } from "./offer.ts";
import { addReceipt, type Receipt, receiptIds, verifyReceipt } from "./receipt.ts";
import {
  offerCodeAad,
  type OfferRecord,
  offerRefreshAad,
  type OfferState,
  offerTokenAad,
  type StoredOffer,
} from "./record.ts";
import { CredentialRejected } from "../credentials/mod.ts";
import { addNewOffer, addOfferUpdate, listOffers, readOffer } from "./store.ts";

/** What the holder uses: what a deferred issuance's polls use, and the org wallets (proof keys). */
export interface Oid4vcHolderDeps extends DeferredDeps {
  wallet: Wallet;
}

const ACCEPT_LEASE_MS = 60_000;

/** The OpenID4VCI holder of every configured org. */
export class Oid4vcHolder {
  readonly #d: Oid4vcHolderDeps;

  constructor(deps: Oid4vcHolderDeps) {
    this.#d = deps;
  }

  /** The org's agent: its wallet holds the proof key (409 without one). */
  #requireAgent(orgId: string) {
    return this.#d.wallet.requireIdentity(orgId, "the proof key");
  }

  /** Reads the offer URI, the offer and the issuer's metadata; stores an `offer-received` record. */
  async receiveOffer(orgId: string, uri: string): Promise<OfferRecord> {
    await this.#requireAgent(orgId);
    const libs = await loadOid4vcLibraries();
    const got = await receiveOffer(libs, issuerClient(libs, this.#d.safeFetch), uri);
    const now = this.#d.now();
    const id = uuidv7(now);
    const at = new Date(now).toISOString();
    const record: OfferRecord = {
      id,
      orgId,
      state: "offer-received",
      credentialIssuer: got.offer.credential_issuer,
      credentialConfigurationIds: got.offer.credential_configuration_ids,
      ...(got.issuerName ? { issuerName: got.issuerName } : {}),
      txCodeRequired: got.txCodeRequired,
      credentialIds: [],
      createdAt: at,
      updatedAt: at,
    };
    const stored: StoredOffer = {
      record,
      sealedCode: await this.#d.secrets.seal(got.preAuthorizedCode, offerCodeAad(orgId, id)),
      offer: got.offer,
      metadata: got.metadata,
    };
    await atomicUpdate(this.#d.kv, (op) => addNewOffer(op, stored, now));
    this.#d.dispatcher.wake();
    return record;
  }

  async #entry(orgId: string, id: string): Promise<Deno.KvEntry<StoredOffer>> {
    const entry = await readOffer(this.#d.kv, orgId, id);
    if (!entry) throw notFound(`No credential offer "${id}" exists in organization "${orgId}".`);
    return entry;
  }

  /** The offer, still `offer-received` (another request may have changed it meanwhile). */
  async #openEntry(orgId: string, id: string): Promise<Deno.KvEntry<StoredOffer>> {
    const entry = await this.#entry(orgId, id);
    const { state } = entry.value.record;
    if (state !== "offer-received") {
      throw wrongState("Credential offer", id, state, "offer-received");
    }
    return entry;
  }

  /**
   * Moves an open offer (`entry`, as read) to `change.state` with the credentials it stores (and
   * their statuses, `receipt`); `also` adds to the same atomic operation what goes with it (the
   * first poll of a deferred issuance). A lost race reads the offer again: the change is made
   * while it is still open, else 409 names its state.
   */
  async #commitState(
    entry: Deno.KvEntry<StoredOffer>,
    change: Partial<OfferRecord> & { state: OfferState },
    receipt?: Receipt,
    also?: (op: Deno.AtomicOperation, next: StoredOffer, now: number) => void | Promise<void>,
  ): Promise<OfferRecord> {
    const { orgId, id } = entry.value.record;
    const next = await atomicUpdate(this.#d.kv, async (op, attempt) => {
      const cur = attempt === 0 ? entry : await this.#openEntry(orgId, id);
      const now = this.#d.now();
      const next: StoredOffer = {
        ...cur.value,
        record: { ...cur.value.record, ...change, updatedAt: new Date(now).toISOString() },
      };
      await also?.(op, next, now);
      addOfferUpdate(op, cur, next, now);
      if (receipt) addReceipt(op, this.#d.credentials, receipt);
      return next;
    }, {
      conflict: () =>
        conflict(`Credential offer "${id}" kept changing while this request ran; read it again.`),
    });
    this.#d.dispatcher.wake();
    return next.record;
  }

  /** Declines an offer: nothing is sent to the issuer. */
  async decline(orgId: string, id: string): Promise<OfferRecord> {
    const entry = await this.#openEntry(orgId, id);
    return await this.#commitState(entry, { state: "declined" });
  }

  /**
   * Accepts an offer: token, nonce, proofs, credentials, verification, storage. An issuer that
   * cannot be reached or refuses throws (502) and leaves the record as it was; a credential that
   * fails verification makes the record `failed` with nothing stored; a deferred issuance makes
   * it `deferred`, polled from then on.
   */
  async accept(orgId: string, id: string, opts: { txCode?: string } = {}): Promise<OfferRecord> {
    const agent = await this.#requireAgent(orgId);
    const entry = await this.#openEntry(orgId, id);
    const { record } = entry.value;
    if (record.txCodeRequired && !opts.txCode) {
      throw badRequest(
        `Credential offer "${id}" needs the transaction code (txCode) the issuer gave you.`,
      );
    }
    if (!record.txCodeRequired && opts.txCode !== undefined) {
      throw badRequest(`Credential offer "${id}" asks for no transaction code; leave txCode out.`);
    }
    const lease = {
      ms: ACCEPT_LEASE_MS,
      now: this.#d.now,
      busy: () => conflict(`Credential offer "${id}" is being accepted by another request.`),
    };
    return await withLease(this.#d.kv, keys.oid4vcAccepting(orgId, id), lease, async () => {
      const libs = await loadOid4vcLibraries();
      const code = await this.#d.secrets.openString(
        entry.value.sealedCode,
        offerCodeAad(orgId, id),
      );
      const { offer, metadata } = await this.#redeemable(libs, entry.value);
      let issuance: Issuance;
      try {
        issuance = await redeemOffer(
          {
            libs,
            safeFetch: this.#d.safeFetch,
            wallet: this.#d.wallet,
            agent: { orgId, agentId: agent.agentId, keyId: agent.keyId },
            now: this.#d.now,
          },
          offerWithCode(offer, code),
          metadata,
          opts.txCode,
        );
      } catch (err) {
        if (!(err instanceof CredentialRejected)) throw err;
        return await this.#commitState(entry, {
          state: "failed",
          errorMessage:
            `The credential from ${record.credentialIssuer} was not issued: ${err.message}.`,
        });
      }
      return await this.#receive(orgId, id, { ...entry.value, metadata }, issuance);
    });
  }

  /** The offer and metadata to redeem (read again for offers kept before the libraries). */
  async #redeemable(
    libs: Oid4vcLibraries,
    stored: StoredOffer,
  ): Promise<{ offer: CredentialOfferObject; metadata: IssuerMetadataResult }> {
    if (stored.offer && stored.metadata) return { offer: stored.offer, metadata: stored.metadata };
    const { record } = stored;
    const metadata = await issuerClient(libs, this.#d.safeFetch)
      .resolveIssuerMetadata(record.credentialIssuer)
      .catch((err) => {
        throw issuerFailure(libs, err, "credential issuer metadata", "bad-issuer");
      });
    const grant = record.txCodeRequired ? { tx_code: {} } : {};
    const offer = {
      credential_issuer: record.credentialIssuer,
      credential_configuration_ids: record.credentialConfigurationIds,
      grants: { [PRE_AUTHORIZED_GRANT]: grant },
    } as unknown as CredentialOfferObject;
    return { offer, metadata };
  }

  /**
   * The receipt: verifies every issued credential, then stores them with the offer's new state
   * (`done`, or `deferred` with its first poll when the issuer will send more later).
   */
  async #receive(
    orgId: string,
    id: string,
    stored: StoredOffer,
    issuance: Issuance,
  ): Promise<OfferRecord> {
    let receipt: Receipt;
    try {
      receipt = await verifyReceipt(this.#d, {
        orgId,
        offerId: id,
        credentialIssuer: stored.record.credentialIssuer,
        expectedVct: (c) => vctOf(stored, c),
        expectedTypes: (c) => typesOf(stored, c),
      }, issuance.issued);
    } catch (err) {
      if (!(err instanceof CredentialRejected)) throw err;
      return await this.#commitState(await this.#openEntry(orgId, id), {
        state: "failed",
        errorMessage: err.message,
      });
    }
    const entry = await this.#openEntry(orgId, id);
    const credentialIds = receiptIds(receipt);
    if (issuance.deferred.length === 0) {
      return await this.#commitState(entry, { state: "done", credentialIds }, receipt);
    }
    const sealedAccessToken = await this.#d.secrets.seal(
      issuance.accessToken,
      offerTokenAad(orgId, id),
    );
    const sealedRefreshToken = issuance.refreshToken === undefined
      ? undefined
      : await this.#d.secrets.seal(issuance.refreshToken, offerRefreshAad(orgId, id));
    return await this.#commitState(
      entry,
      { state: "deferred", credentialIds },
      receipt,
      (op, next, now) => {
        const intervalS = clampInterval(issuance.intervalS);
        next.metadata = stored.metadata;
        next.deferred = {
          sealedAccessToken,
          ...(sealedRefreshToken ? { sealedRefreshToken } : {}),
          authorizationServer: issuance.authorizationServer,
          transactions: issuance.deferred,
          intervalS,
          jobId: addPoll(op, orgId, id, intervalS, now),
          until: now + GIVE_UP_MS,
        };
      },
    );
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
}
