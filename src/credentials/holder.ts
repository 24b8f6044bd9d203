/**
 * The holder's actions on an exchange: accept or decline an offer, accept a received credential.
 * Routes, inbound handlers and the auto-accept policy all go through these methods. Every change
 * is one version-checked atomic commit carrying the record, its event and the DIDComm message it
 * causes; a lost race is re-read and reported as 409 naming the state it found.
 *
 * @module
 */
import type { AppDeps } from "../deps.ts";
import { verkeyToDidKey } from "../crypto/ed25519.ts";
import { AppError, conflict, notFound } from "../errors.ts";
import { keys } from "../kv/keys.ts";
import { didKeyDocument } from "../did/methods/key.ts";
import type { LdDidDocument, ResolveDid } from "./jsonld/types.ts";
import type { CredentialDidcommPort, DidcommMessage } from "./didcomm_port.ts";
import { buildRequestDetail, type LdProofVcDetail } from "./jsonld_format.ts";
import { ackMessage, PROBLEM_CODES, problemReportMessage, requestMessage } from "./messages.ts";
import {
  type CredentialExchangeRecord,
  type CredentialState,
  type StoredExchange,
  withState,
  wrongStateMessage,
} from "./record.ts";
import { addExchangeUpdate, readOrgExchange } from "./store.ts";

/** The org's auto-accept policy (agent configuration); `never` without an agent. */
export type AutoAccept = "never" | "contentApproved" | "always";

/** Options of {@link CredentialHolder}. */
export interface HolderOptions {
  port: CredentialDidcommPort;
  /** Resolves issuer DIDs for proof verification; default: did:key only. */
  resolveDid?: ResolveDid;
}

/** Options of {@link CredentialHolder.acceptOffer}. */
export interface AcceptOfferOptions {
  /** Set `credentialSubject.id` to the org's holder did:key when the offer leaves it open. */
  bindSubjectDid?: boolean;
}

/** Resolves did:key offline; other methods are not resolvable without the resolver facade. */
export const resolveDidKeyOnly: ResolveDid = (did) => {
  const doc = didKeyDocument(did);
  return Promise.resolve(doc.ok ? doc.value as unknown as LdDidDocument : null);
};

const MAX_RACES = 5;

/** The holder side of Issue Credential 2.0 for every org of the service. */
export class CredentialHolder {
  readonly deps: AppDeps;
  readonly port: CredentialDidcommPort;
  readonly resolveDid: ResolveDid;

  constructor(deps: AppDeps, opts: HolderOptions) {
    this.deps = deps;
    this.port = opts.port;
    this.resolveDid = opts.resolveDid ?? resolveDidKeyOnly;
  }

  /** The org's auto-accept policy, read from its agent configuration. */
  async autoAcceptPolicy(orgId: string): Promise<AutoAccept> {
    const agent = await this.deps.kv.get<{ autoAcceptCredentials?: string }>(keys.agent(orgId));
    const p = agent.value?.autoAcceptCredentials;
    return p === "always" || p === "contentApproved" ? p : "never";
  }

  /** The org's holder did:key: the did:key of its agent key. */
  async holderDid(orgId: string): Promise<string> {
    const agent = await this.deps.kv.get<{ verkey?: string }>(keys.agent(orgId));
    if (typeof agent.value?.verkey !== "string") {
      throw conflict(`Organization "${orgId}" has no agent configured, so it has no holder DID.`);
    }
    return verkeyToDidKey(agent.value.verkey);
  }

  /**
   * Moves exchange `id` of `orgId` from `from` to the state `step` returns, inside one
   * version-checked commit that also carries what `step` adds to the operation.
   */
  async transition(
    orgId: string,
    id: string,
    from: CredentialState,
    step: (
      stored: StoredExchange,
      op: Deno.AtomicOperation,
      now: number,
    ) => Promise<StoredExchange>,
  ): Promise<CredentialExchangeRecord> {
    for (let attempt = 0;; attempt++) {
      const entry = await readOrgExchange(this.deps.kv, orgId, id);
      if (!entry) throw notFound(`No credential exchange record "${id}" exists.`);
      const state = entry.value.record.state;
      if (state !== from) throw conflict(wrongStateMessage(id, state, from));
      const now = this.deps.now();
      const op = this.deps.kv.atomic();
      const next = await step(entry.value, op, now);
      addExchangeUpdate(op, entry, next, now);
      const res = await op.commit();
      if (res.ok) {
        this.deps.dispatcher.wake();
        return next.record;
      }
      if (attempt >= MAX_RACES) {
        throw new AppError("conflict", 409, "The record is changing too fast; try again.");
      }
    }
  }

  /** Queues `message` on the exchange's connection inside `op`. */
  async #queue(op: Deno.AtomicOperation, stored: StoredExchange, message: DidcommMessage) {
    const { orgId, record } = stored;
    try {
      await this.port.queueMessage(op, { orgId, connectionId: record.connectionId, message });
    } catch (err: unknown) {
      if (err instanceof AppError && err.status === 404) {
        // the record exists; its connection does not (any more): a state problem, not a 404
        throw conflict(
          `Credential exchange "${record.id}" uses connection "${record.connectionId}", ` +
            "which no longer exists; no message can be sent on it.",
        );
      }
      throw err;
    }
  }

  /** `offer-received` → `request-sent`: sends the request for the offered credential. */
  async acceptOffer(
    orgId: string,
    id: string,
    opts: AcceptOfferOptions = {},
  ): Promise<CredentialExchangeRecord> {
    const holderDid = opts.bindSubjectDid ? await this.holderDid(orgId) : undefined;
    return await this.transition(orgId, id, "offer-received", async (stored, op, now) => {
      const offer = stored.format.offer as LdProofVcDetail | undefined;
      if (!offer) {
        throw conflict(`Credential exchange "${id}" has no JSON-LD offer to accept.`);
      }
      const request = buildRequestDetail(offer, holderDid);
      await this.#queue(op, stored, requestMessage(stored.record.threadId, request));
      return {
        ...stored,
        record: withState(stored.record, "request-sent", now),
        format: { ...stored.format, request },
      };
    });
  }

  /** `offer-received` → `declined`, telling the issuer with a problem report. */
  async declineOffer(orgId: string, id: string): Promise<CredentialExchangeRecord> {
    return await this.transition(orgId, id, "offer-received", async (stored, op, now) => {
      await this.#queue(
        op,
        stored,
        problemReportMessage(
          stored.record.threadId,
          PROBLEM_CODES.abandoned,
          "The holder declined the credential offer.",
        ),
      );
      return { ...stored, record: withState(stored.record, "declined", now) };
    });
  }

  /** `credential-received` → `done`, with the ack in the same commit. */
  async acceptCredential(orgId: string, id: string): Promise<CredentialExchangeRecord> {
    return await this.transition(orgId, id, "credential-received", async (stored, op, now) => {
      await this.#queue(op, stored, ackMessage(stored.record.threadId));
      return { ...stored, record: withState(stored.record, "done", now) };
    });
  }
}
