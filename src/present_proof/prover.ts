/**
 * The prover's side of Present Proof 2.0 for every org of the service: reading proof exchange
 * records, evaluating a request against the org's stored credentials, and the actions (accept:
 * the signed presentation is sent; decline: a problem report is sent). Routes, inbound handlers
 * and the auto-accept policy all go through these methods. Every change is one version-checked
 * atomic commit carrying the record, its event and the DIDComm message it causes.
 *
 * @module
 */
import type { AgentRecord, ProofAutoAcceptPolicy, WalletKey } from "../agents/mod.ts";
import type { CredentialStore, RemoteContexts } from "../credentials/mod.ts";
import { verkeyToDidKey } from "../crypto/mod.ts";
import { ExchangeKit, type ExchangeKitDeps, type ExchangeProtocol } from "../didcomm/mod.ts";
import { badRequest, conflict, notFound } from "../base/mod.ts";
import type { Page } from "../kv/mod.ts";
import { type Candidate, evaluateRequest, type Evaluation } from "./evaluate.ts";
import { presentationMessage, PROOF_PROBLEM_CODES, proofProblemReport } from "./messages.ts";
import { buildPresentation } from "./present.ts";
import {
  FINAL_PROOF_STATES,
  type ProofExchangeRecord,
  type ProofState,
  type StoredProof,
  withMatches,
  withProofState,
} from "./record.ts";
import type { PeRequest } from "./request.ts";
import {
  addProofUpdate,
  listProofs,
  readOrgProof,
  readProof,
  readProofByThread,
  readProofRequest,
} from "./store.ts";

/** Present Proof 2.0 as the DIDComm exchange kit drives it. */
const PRESENT_PROOF: ExchangeProtocol<StoredProof> = {
  name: "Proof exchange",
  problemReport: proofProblemReport,
  finalStates: FINAL_PROOF_STATES,
  withState: (stored, state, now, errorMessage) => ({
    ...stored,
    record: withProofState(stored.record, state, now, errorMessage ? { errorMessage } : {}),
  }),
  read: readOrgProof,
  readByThread: readProofByThread,
  addUpdate: addProofUpdate,
};

/** What the prover is built from: the exchange kit's KV, DIDComm layer, dispatcher and clock, and… */
export interface ProverDeps extends ExchangeKitDeps {
  /** The org agents: the auto-accept policy and the key that signs. */
  agents: { find(orgId: string): Promise<AgentRecord | undefined> };
  /** The org wallets: the agent key's private half, opened only to sign. */
  wallet: { openKey(orgId: string, keyId: string): Promise<WalletKey | undefined> };
  /**
   * The org's stored credentials: the W3C ones a presentation may use (checked now: revoked and
   * suspended ones are never offered).
   */
  credentials: Pick<CredentialStore, "presentable">;
  /** Contexts that are not bundled (the `JSONLD_CONTEXT_ALLOW` store), used by credentials. */
  contexts?: RemoteContexts;
}

/** The prover side of Present Proof 2.0 for every org of the service. */
export class ProofProver {
  readonly #d: ProverDeps;
  /** The DIDComm exchange kit of Present Proof (replies, lookups, transitions, queueing). */
  readonly exchanges: ExchangeKit<StoredProof>;

  constructor(deps: ProverDeps) {
    this.#d = deps;
    this.exchanges = new ExchangeKit(deps, PRESENT_PROOF);
  }

  /** The exchange record `id` with its org, or undefined when there is none. */
  async find(id: string): Promise<{ orgId: string; record: ProofExchangeRecord } | undefined> {
    const entry = await readProof(this.#d.kv, id);
    return entry ? { orgId: entry.value.orgId, record: entry.value.record } : undefined;
  }

  /**
   * One page of the org's proof exchange records, newest first, as they stand now: an open request
   * this service can answer is evaluated again against the org's credentials, as accept evaluates
   * it, so a credential stored after the request arrived is offered, one revoked or suspended
   * since is not, and `selection` and `unanswerable` say what accept would do. The read stores
   * nothing: the stored record and its events keep the evaluation made when the request arrived.
   */
  async list(
    orgId: string,
    q: { limit: number; cursor?: string; state?: ProofState },
  ): Promise<Page<ProofExchangeRecord>> {
    const page = await listProofs(this.#d.kv, orgId, q);
    return { data: await this.#current(orgId, page.data), nextCursor: page.nextCursor };
  }

  /** The exchange record `id` of `orgId` as it stands now (see {@link list}); 404 without one. */
  async read(orgId: string, id: string): Promise<ProofExchangeRecord> {
    const entry = await readOrgProof(this.#d.kv, orgId, id);
    if (!entry) throw notFound(`No proof exchange record "${id}" exists.`);
    return (await this.#current(orgId, [entry.value]))[0]!;
  }

  /** The records of `stored` (all of `orgId`), each open answerable request evaluated now. */
  async #current(orgId: string, stored: readonly StoredProof[]): Promise<ProofExchangeRecord[]> {
    const open = (s: StoredProof) => s.record.state === "request-received" && s.request.answerable;
    // Without an agent nothing can be presented; accept says so.
    const agent = stored.some(open) ? await this.#d.agents.find(orgId) : undefined;
    if (!agent) return stored.map((s) => s.record);
    const holderDid = verkeyToDidKey(agent.verkey);
    const candidates = await this.#candidates(orgId);
    return await Promise.all(stored.map(async (s) => {
      const request = open(s) ? await readProofRequest(this.#d.kv, orgId, s.record.id) : undefined;
      if (!request) return s.record;
      return withMatches(s.record, await evaluateRequest(request, candidates, { holderDid }));
    }));
  }

  /** The org's auto-accept policy for proof requests; `never` without an agent. */
  async autoAcceptPolicy(orgId: string): Promise<ProofAutoAcceptPolicy> {
    return (await this.#d.agents.find(orgId))?.autoAcceptProofs ?? "never";
  }

  /** The org's holder did:key (its agent key), or undefined without an agent. */
  async holderDid(orgId: string): Promise<string | undefined> {
    const agent = await this.#d.agents.find(orgId);
    return agent ? verkeyToDidKey(agent.verkey) : undefined;
  }

  /** Evaluates `request` against the org's presentable credentials. */
  async evaluate(
    orgId: string,
    request: PeRequest,
    holderDid: string,
    selection?: Record<string, string>,
  ): Promise<Evaluation & { candidates: Candidate[] }> {
    const candidates = await this.#candidates(orgId);
    const ev = await evaluateRequest(request, candidates, { holderDid, selection });
    return { ...ev, candidates };
  }

  /** The org's presentable W3C credentials, newest first (`credentials/`: checked now). */
  async #candidates(orgId: string): Promise<Candidate[]> {
    return (await this.#d.credentials.presentable(orgId, ["ldp_vc"])).flatMap((c) =>
      c.format === "ldp_vc" ? [{ id: c.record.id, credential: c.record.credential }] : []
    );
  }

  /**
   * `request-received` → `presentation-sent`: evaluates the request (the `selection`, else the
   * newest match of each descriptor needed), signs the presentation and commits it to the outbox
   * with the state change. 409 for an unmet descriptor, a format this service cannot answer, or
   * the wrong state.
   */
  async acceptRequest(
    orgId: string,
    id: string,
    selection?: Record<string, string>,
  ): Promise<ProofExchangeRecord> {
    const { kv } = this.#d;
    const entry = await readOrgProof(kv, orgId, id);
    if (!entry) throw notFound(`No proof exchange record "${id}" exists.`);
    const { record, request: data } = entry.value;
    this.exchanges.mustBeIn(record, "request-received");
    const request = data.answerable ? await readProofRequest(kv, orgId, id) : undefined;
    if (!request) {
      throw conflict(
        `Proof exchange "${id}" asks in the format "${record.requestFormat}", which this ` +
          "service cannot answer (it answers dif/presentation-exchange/definitions@v1.0 with " +
          "W3C JSON-LD credentials); decline it instead.",
      );
    }
    const agent = await this.#d.agents.find(orgId);
    if (!agent) throw conflict(`Organization "${orgId}" has no agent configured to sign with.`);
    const holderDid = verkeyToDidKey(agent.verkey);
    const ev = await this.evaluate(orgId, request, holderDid, selection);
    if (ev.badSelection) {
      throw badRequest(ev.badSelection, [{ path: "selection", message: ev.badSelection }]);
    }
    if (ev.unmet || !ev.selection) throw conflict(ev.unmet ?? "The request cannot be met.");
    const byId = new Map(ev.candidates.map((c) => [c.id, c]));
    const chosen = new Map(Object.entries(ev.selection).map(([d, c]) => [d, byId.get(c)!]));
    const key = await this.#d.wallet.openKey(orgId, agent.keyId);
    if (!key) throw conflict(`The agent key of organization "${orgId}" is not in its wallet.`);
    let vp: Record<string, unknown>;
    try {
      vp = await buildPresentation(request, chosen, {
        did: holderDid,
        verificationMethod: `${holderDid}#${holderDid.slice("did:key:".length)}`,
        publicKey: key.publicKey,
        secretKey: key.secretKey,
      }, this.#d.contexts);
    } finally {
      key.secretKey.fill(0);
    }
    const sent = ev.selection;
    return await this.exchanges.transition(
      orgId,
      id,
      "request-received",
      async (stored, op, now) => {
        await this.exchanges.queue(op, stored, presentationMessage(stored.record.threadId, vp));
        return {
          ...stored,
          record: withProofState(stored.record, "presentation-sent", now, { selection: sent }),
        };
      },
    );
  }

  /** `request-received` → `declined`, telling the verifier with a problem report. */
  async declineRequest(orgId: string, id: string): Promise<ProofExchangeRecord> {
    return await this.exchanges.transition(
      orgId,
      id,
      "request-received",
      async (stored, op, now) => {
        await this.exchanges.queue(
          op,
          stored,
          proofProblemReport(
            stored.record.threadId,
            PROOF_PROBLEM_CODES.declined,
            "The prover declined the proof request.",
          ),
        );
        return { ...stored, record: withProofState(stored.record, "declined", now) };
      },
    );
  }
}
