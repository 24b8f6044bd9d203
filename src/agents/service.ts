/**
 * The agents service: an org's agent configuration (create, read, change, remove) and the
 * exchange of its API key for an agent token. Every change is one version-checked atomic commit
 * carrying the record, its wallet key or API key pointer and its `agent.configured` event.
 *
 * @module
 */
import { hashSecret, verifySecret, verkeyToBytes } from "../crypto/mod.ts";
import { badRequest, conflict, log, notFound } from "../base/mod.ts";
import { atomicUpdate, keys, uuidv7 } from "../kv/mod.ts";
import {
  checkOutboundUrl,
  type HostLookup,
  type OutboundPolicy,
  SafeFetchError,
} from "../outbound/mod.ts";
import { emit } from "../webhooks/mod.ts";
import { API_KEY_MAX, API_KEY_MIN, type ApiKeyIndex, wrongApiKey } from "./api_key.ts";
import { ADDRESS_LIMIT, ORG_LIMIT, takeAttempt } from "./attempt_limits.ts";
import { createAgentPeerDid } from "./peer_did.ts";
import {
  type AgentRecord,
  type AgentView,
  agentView,
  type AutoAcceptPolicy,
  type ProofAutoAcceptPolicy,
  readAgent,
} from "./record.ts";
import type { ServiceSigner } from "./service_key.ts";
import type { Wallet } from "./wallet.ts";

/** `data` of the configure envelope. */
export interface ConfiguredAgent {
  id: string;
  orgId: string;
  walletName: string;
  agentEndpoint: string;
  did: string;
  createdAt: string;
}

/** A change of the agent (at least one field). */
export interface AgentPatch {
  agentEndpoint?: string;
  apiKey?: string;
  autoAcceptCredentials?: AutoAcceptPolicy;
  autoAcceptProofs?: ProofAutoAcceptPolicy;
}

/** What the service is built from. */
export interface AgentServiceDeps {
  kv: Deno.Kv;
  wallet: Wallet;
  apiKeys: ApiKeyIndex;
  signer: ServiceSigner;
  /** Woken after a commit that queued outbox messages. */
  dispatcher: { wake(): void };
  now: () => number;
  /** Agent endpoints are where peers are told to send: they must pass the outbound policy. */
  outbound: OutboundPolicy;
  /** How an endpoint's host is resolved for that check (default: the system's DNS). */
  resolveHost?: HostLookup;
  /**
   * Adds to the operation that changes `agentEndpoint` what the change means elsewhere: the
   * DIDComm layer rotates the DIDs of the org's connections (RFC 0794).
   */
  onEndpointChange?: (
    op: Deno.AtomicOperation,
    orgId: string,
    endpoint: string,
    now: number,
  ) => void;
  /** The org's DIDComm connections: while it has any, removal needs `force`. */
  connections?: { hasConnections(orgId: string): Promise<boolean> };
}

const ALREADY =
  "already has an agent; change it with PATCH /orgs/{orgId}/agents or remove it with DELETE first.";

let dummyHash: Promise<string> | undefined;

/** An org's agent configuration and its API key. */
export class AgentService {
  readonly #d: AgentServiceDeps;

  constructor(deps: AgentServiceDeps) {
    this.#d = deps;
  }

  /** The stored record of the org's agent, or undefined. */
  async find(orgId: string): Promise<AgentRecord | undefined> {
    return (await readAgent(this.#d.kv, orgId)).value ?? undefined;
  }

  /** The org's auto-accept policy for received credentials; `never` without an agent. */
  async autoAcceptPolicy(orgId: string): Promise<AutoAcceptPolicy> {
    return (await this.find(orgId))?.autoAcceptCredentials ?? "never";
  }

  /** The public view of the org's agent; 404 without one. */
  async view(orgId: string): Promise<AgentView> {
    const r = await this.find(orgId);
    if (!r) throw notFound(`Organization "${orgId}" has no agent configured.`);
    return agentView(r);
  }

  /** Creates the org's agent: wallet key, did:peer:2, hashed API key. 409 when it has one. */
  async configure(
    orgId: string,
    input: { walletName: string; agentEndpoint: string; apiKey: string },
  ): Promise<ConfiguredAgent> {
    const { kv, wallet, apiKeys, now: clock } = this.#d;
    await this.#checkEndpoint(input.agentEndpoint);
    if ((await readAgent(kv, orgId)).value) throw conflict(`Organization "${orgId}" ${ALREADY}`);
    const now = clock();
    const id = uuidv7(now);
    const { record: key, publicKey } = await wallet.newKey(orgId, id, { purpose: "agent", now });
    const { did } = createAgentPeerDid(publicKey, input.agentEndpoint);
    const at = new Date(now).toISOString();
    const record: AgentRecord = {
      id,
      orgId,
      walletName: input.walletName,
      agentEndpoint: input.agentEndpoint,
      did,
      verkey: key.verkey,
      keyId: key.keyId,
      apiKeyHash: await hashSecret(input.apiKey),
      apiKeyLookup: await apiKeys.lookupId(input.apiKey),
      autoAcceptCredentials: "never",
      autoAcceptProofs: "never",
      keyEpoch: crypto.randomUUID(),
      createdAt: at,
      updatedAt: at,
    };
    const data: ConfiguredAgent = {
      id,
      orgId,
      walletName: record.walletName,
      agentEndpoint: record.agentEndpoint,
      did,
      createdAt: at,
    };
    const op = kv.atomic().check({ key: keys.agent(orgId), versionstamp: null });
    wallet.write(op, key);
    op.set(keys.agent(orgId), record).set(keys.agentByApiKey(record.apiKeyLookup, orgId), orgId);
    emit(op, orgId, "agent.configured", { ...data, action: "created" }, now);
    if (!(await op.commit()).ok) throw conflict(`Organization "${orgId}" ${ALREADY}`);
    this.#d.dispatcher.wake();
    log("info", "agent configured", { orgId, agentId: id, did });
    return data;
  }

  /**
   * Changes the endpoint (existing connections follow through `onEndpointChange`), rotates the
   * API key (its agent tokens end at once) or sets an auto-accept policy (credentials, proofs). 404
   * without an agent.
   */
  async update(orgId: string, patch: AgentPatch): Promise<AgentView> {
    const { kv, apiKeys } = this.#d;
    if (patch.agentEndpoint !== undefined) await this.#checkEndpoint(patch.agentEndpoint);
    const newKey = patch.apiKey === undefined ? undefined : {
      hash: await hashSecret(patch.apiKey),
      lookup: await apiKeys.lookupId(patch.apiKey),
    };
    const next = await atomicUpdate(kv, async (op) => {
      const cur = await readAgent(kv, orgId);
      if (!cur.value) throw notFound(`Organization "${orgId}" has no agent configured.`);
      const now = this.#d.now();
      const next: AgentRecord = { ...cur.value, updatedAt: new Date(now).toISOString() };
      const endpointChanged = patch.agentEndpoint !== undefined &&
        patch.agentEndpoint !== next.agentEndpoint;
      if (endpointChanged) {
        next.agentEndpoint = patch.agentEndpoint!;
        next.did = createAgentPeerDid(verkeyToBytes(next.verkey), next.agentEndpoint).did;
      }
      if (patch.autoAcceptCredentials) next.autoAcceptCredentials = patch.autoAcceptCredentials;
      if (patch.autoAcceptProofs) next.autoAcceptProofs = patch.autoAcceptProofs;
      op.check(cur);
      if (endpointChanged) this.#d.onEndpointChange?.(op, orgId, next.agentEndpoint, now);
      if (newKey) {
        next.apiKeyHash = newKey.hash;
        next.apiKeyLookup = newKey.lookup;
        next.keyEpoch = crypto.randomUUID(); // agent tokens of the old key stop working
        op.delete(keys.agentByApiKey(cur.value.apiKeyLookup, orgId))
          .set(keys.agentByApiKey(newKey.lookup, orgId), orgId);
      }
      op.set(keys.agent(orgId), next);
      const { id, walletName, agentEndpoint, did, createdAt } = next;
      emit(op, orgId, "agent.configured", {
        id,
        orgId,
        walletName,
        agentEndpoint,
        did,
        createdAt,
        action: "updated",
      }, now);
      return next;
    });
    this.#d.dispatcher.wake();
    log("info", "agent updated", {
      orgId,
      fields: Object.keys(patch).map((k) => k === "apiKey" ? "apiKey (rotated)" : k),
    });
    return agentView(next);
  }

  /** Removes the agent and its wallet keys; 409 while connections exist unless `force`. */
  async remove(orgId: string, opts: { force?: boolean } = {}): Promise<void> {
    const { kv } = this.#d;
    const gone = () => notFound(`Organization "${orgId}" has no agent configured.`);
    if (!(await readAgent(kv, orgId)).value) throw gone();
    if (!opts.force && await this.#d.connections?.hasConnections(orgId)) {
      throw conflict(
        `Organization "${orgId}" has connections; remove them first or use ?force=true.`,
      );
    }
    const agent = await atomicUpdate(kv, async (op) => {
      const cur = await readAgent(kv, orgId);
      if (!cur.value) throw gone();
      op.check(cur).delete(keys.agent(orgId))
        .delete(keys.agentByApiKey(cur.value.apiKeyLookup, orgId));
      return cur.value;
    }, {
      conflict: () => conflict("The agent kept changing while it was being removed; try again."),
    });
    const removed = await this.#d.wallet.deleteKeys(orgId, agent.id);
    log("info", "agent removed", {
      orgId,
      agentId: agent.id,
      walletKeys: removed,
      force: !!opts.force,
    });
  }

  /**
   * Exchanges an agent API key for a 15-minute org-scoped token. The org is found from the key
   * alone (its keyed lookup id) unless `orgId` names it; either way the key is verified in
   * constant time against the org's salted hash. Every attempt is counted first, per client
   * address and per org (`attempt_limits.ts`), and refused with 429 past the limit.
   */
  async issueToken(
    apiKey: string,
    named: string | undefined,
    clientAddress: string,
  ): Promise<{ token: string; expiresIn: number }> {
    const { kv } = this.#d;
    const now = this.#d.now();
    await takeAttempt(kv, { address: clientAddress }, ADDRESS_LIMIT, now);
    let orgId = named;
    if (orgId === undefined) {
      const found = await this.#orgsForKey(apiKey);
      if (found.length === 0) {
        log("info", "agent token refused: key matches no organization", { clientAddress });
        throw wrongApiKey();
      }
      if (found.length > 1) {
        throw badRequest(
          "This API key is configured for more than one organization; name yours with ?orgId=.",
          [{ path: "orgId", message: "Required when the API key is shared by organizations." }],
        );
      }
      orgId = found[0]!;
    }
    await takeAttempt(kv, { orgId }, ORG_LIMIT, now);
    const agent = await this.find(orgId);
    const plausible = apiKey.length >= API_KEY_MIN && apiKey.length <= API_KEY_MAX;
    // Without an agent the key is still hashed, so timing does not tell which orgs have one.
    const stored = agent?.apiKeyHash ?? await (dummyHash ??= hashSecret(crypto.randomUUID()));
    const ok = await verifySecret(plausible ? apiKey : "", stored) && plausible && !!agent;
    if (!ok) {
      log("info", "agent token refused", { orgId, clientAddress });
      throw wrongApiKey();
    }
    const token = await this.#d.signer.mintAgentToken(orgId, agent!.keyEpoch ?? "");
    log("info", "agent token issued", { orgId });
    return token;
  }

  /**
   * 400 unless `endpoint` passes the outbound policy: peers are told to send there, so it may not
   * name a loopback, private, link-local (metadata) or other special-purpose address.
   */
  async #checkEndpoint(endpoint: string): Promise<void> {
    try {
      await checkOutboundUrl(endpoint, this.#d.outbound, this.#d.resolveHost);
    } catch (err) {
      if (!(err instanceof SafeFetchError)) throw err;
      const message = `agentEndpoint: ${err.message}`;
      throw badRequest(message, [{ path: "agentEndpoint", message }]);
    }
  }

  /** Orgs whose configured key has this key's lookup id (at most 2 are read). */
  async #orgsForKey(apiKey: string): Promise<string[]> {
    if (apiKey.length < API_KEY_MIN || apiKey.length > API_KEY_MAX) return [];
    const lookup = await this.#d.apiKeys.lookupId(apiKey);
    const out: string[] = [];
    const it = this.#d.kv.list<string>({ prefix: keys.agentByApiKeyPrefix(lookup) }, { limit: 2 });
    for await (const e of it) out.push(e.value);
    return out;
  }
}
