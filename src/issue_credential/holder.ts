/**
 * The holder's side of Issue Credential 2.0 for every org of the service: reading exchange
 * records and stored credentials, and the actions on an exchange (accept or decline an offer,
 * accept a received credential). Routes, inbound handlers and the auto-accept policy all go
 * through these methods. Every change is one version-checked atomic commit carrying the record,
 * its event and the DIDComm message it causes; a lost race is re-read and reported as 409 naming
 * the state it found.
 *
 * @module
 */
import type { AgentRecord, AutoAcceptPolicy } from "../agents/mod.ts";
import { verkeyToDidKey } from "../crypto/mod.ts";
import { ExchangeKit, type ExchangeKitDeps, type ExchangeProtocol } from "../didcomm/mod.ts";
import { conflict } from "../base/mod.ts";
import type { Page } from "../kv/mod.ts";
import type { StatusService } from "../status/mod.ts";
import type { CredentialStore, RemoteContexts, ResolveDid } from "../credentials/mod.ts";
import { buildRequestDetail, type LdProofVcDetail } from "./jsonld_format.ts";
import { ackMessage, PROBLEM_CODES, problemReportMessage, requestMessage } from "./messages.ts";
import {
  type CredentialExchangeRecord,
  type CredentialState,
  FINAL_STATES,
  type StoredExchange,
  withState,
} from "./record.ts";
import {
  addExchangeUpdate,
  listExchanges,
  readExchange,
  readExchangeByThread,
  readOrgExchange,
} from "./store.ts";

/** Issue Credential 2.0 as the DIDComm exchange kit drives it. */
const ISSUE_CREDENTIAL: ExchangeProtocol<StoredExchange> = {
  name: "Credential exchange",
  problemReport: problemReportMessage,
  finalStates: FINAL_STATES,
  withState: (stored, state, now, errorMessage) => ({
    ...stored,
    record: withState(stored.record, state, now, errorMessage ? { errorMessage } : {}),
  }),
  read: readOrgExchange,
  readByThread: readExchangeByThread,
  addUpdate: addExchangeUpdate,
};

/** What the holder is built from: the exchange kit's KV, DIDComm layer, dispatcher and clock, and… */
export interface HolderDeps extends ExchangeKitDeps {
  /** The org agents: the auto-accept policy and the holder key. */
  agents: { find(orgId: string): Promise<AgentRecord | undefined> };
  /** Resolves issuer DIDs for proof verification (the service's resolver). */
  resolveDid: ResolveDid;
  /** Contexts that are not bundled (the `JSONLD_CONTEXT_ALLOW` store); default none. */
  contexts?: RemoteContexts;
  /** Credential status: checked on receipt. */
  status: Pick<StatusService, "statusOf">;
  /** The org's stored credentials: a received credential is added with its status. */
  credentials: Pick<CredentialStore, "add">;
}

/** Options of {@link CredentialHolder.acceptOffer}. */
export interface AcceptOfferOptions {
  /** Set `credentialSubject.id` to the org's holder did:key when the offer leaves it open. */
  bindSubjectDid?: boolean;
}

/** The holder side of Issue Credential 2.0 for every org of the service. */
export class CredentialHolder {
  readonly #d: HolderDeps;
  /** The DIDComm exchange kit of Issue Credential (replies, lookups, transitions, queueing). */
  readonly exchanges: ExchangeKit<StoredExchange>;

  constructor(deps: HolderDeps) {
    this.#d = deps;
    this.exchanges = new ExchangeKit(deps, ISSUE_CREDENTIAL);
  }

  /** Resolves issuer DIDs for proof verification. */
  get resolveDid(): ResolveDid {
    return this.#d.resolveDid;
  }

  /** Contexts that are not bundled (`JSONLD_CONTEXT_ALLOW`), for proof verification. */
  get contexts(): RemoteContexts | undefined {
    return this.#d.contexts;
  }

  /** Credential status (checks on receipt). */
  get status(): Pick<StatusService, "statusOf"> {
    return this.#d.status;
  }

  /** The org's stored credentials (a received credential is added with its first status). */
  get credentials(): Pick<CredentialStore, "add"> {
    return this.#d.credentials;
  }

  /** The exchange record `id` with its org, or undefined when there is none. */
  async find(id: string): Promise<{ orgId: string; record: CredentialExchangeRecord } | undefined> {
    const entry = await readExchange(this.#d.kv, id);
    return entry ? { orgId: entry.value.orgId, record: entry.value.record } : undefined;
  }

  /** One page of the org's exchange records, newest first. */
  list(
    orgId: string,
    q: { limit: number; cursor?: string; state?: CredentialState },
  ): Promise<Page<CredentialExchangeRecord>> {
    return listExchanges(this.#d.kv, orgId, q);
  }

  /** The org's auto-accept policy, read from its agent configuration. */
  async autoAcceptPolicy(orgId: string): Promise<AutoAcceptPolicy> {
    return (await this.#d.agents.find(orgId))?.autoAcceptCredentials ?? "never";
  }

  /** The org's holder did:key: the did:key of its agent key. */
  async holderDid(orgId: string): Promise<string> {
    const agent = await this.#d.agents.find(orgId);
    if (!agent) {
      throw conflict(`Organization "${orgId}" has no agent configured, so it has no holder DID.`);
    }
    return verkeyToDidKey(agent.verkey);
  }

  /** `offer-received` → `request-sent`: sends the request for the offered credential. */
  async acceptOffer(
    orgId: string,
    id: string,
    opts: AcceptOfferOptions = {},
  ): Promise<CredentialExchangeRecord> {
    const holderDid = opts.bindSubjectDid ? await this.holderDid(orgId) : undefined;
    return await this.exchanges.transition(orgId, id, "offer-received", async (stored, op, now) => {
      const offer = stored.format.offer as LdProofVcDetail | undefined;
      if (!offer) {
        throw conflict(`Credential exchange "${id}" has no JSON-LD offer to accept.`);
      }
      const request = buildRequestDetail(offer, holderDid);
      await this.exchanges.queue(op, stored, requestMessage(stored.record.threadId, request));
      return {
        ...stored,
        record: withState(stored.record, "request-sent", now),
        format: { ...stored.format, request },
      };
    });
  }

  /** `offer-received` → `declined`, telling the issuer with a problem report. */
  async declineOffer(orgId: string, id: string): Promise<CredentialExchangeRecord> {
    return await this.exchanges.transition(orgId, id, "offer-received", async (stored, op, now) => {
      await this.exchanges.queue(
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
    return await this.exchanges.transition(
      orgId,
      id,
      "credential-received",
      async (stored, op, now) => {
        await this.exchanges.queue(op, stored, ackMessage(stored.record.threadId));
        return { ...stored, record: withState(stored.record, "done", now) };
      },
    );
  }
}
