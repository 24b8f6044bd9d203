/**
 * The org agent configuration as stored (`keys.agent(orgId)`) and as shown to callers.
 *
 * @module
 */
import { keys } from "../kv/mod.ts";

/** When a received credential offer is accepted without a person: never, after content approval, always. */
export const AUTO_ACCEPT_POLICIES = ["never", "contentApproved", "always"] as const;
/** One of {@link AUTO_ACCEPT_POLICIES}; default `never`. */
export type AutoAcceptPolicy = typeof AUTO_ACCEPT_POLICIES[number];

/** When a received proof request is answered without a person: never (default), always. */
export const PROOF_AUTO_ACCEPT_POLICIES = ["never", "always"] as const;
/** One of {@link PROOF_AUTO_ACCEPT_POLICIES}. */
export type ProofAutoAcceptPolicy = typeof PROOF_AUTO_ACCEPT_POLICIES[number];

/** Stored agent configuration of one org. Secrets only as a salted hash / keyed lookup id. */
export interface AgentRecord {
  /** UUID v7. */
  id: string;
  orgId: string;
  /** The agent's label (DIDComm `label`). */
  walletName: string;
  /** DIDComm endpoint advertised in the agent DID; `${PUBLIC_URL}/didcomm` unless a relay is in front. */
  agentEndpoint: string;
  /** The org agent's `did:peer:2`. */
  did: string;
  /** base58 Ed25519 verkey of the agent DID's key. */
  verkey: string;
  /** Wallet key id of that key (`keys.agentKey(orgId, keyId)`). */
  keyId: string;
  /** `hashSecret(apiKey)`: salted PBKDF2, only compared. */
  apiKeyHash: string;
  /** Keyed HMAC of the apiKey (hex) that finds the org from the key alone (`keys.agentByApiKey`). */
  apiKeyLookup: string;
  autoAcceptCredentials: AutoAcceptPolicy;
  /** Absent on records made before it existed (treated as `never`). */
  autoAcceptProofs?: ProofAutoAcceptPolicy;
  /**
   * Random, replaced whenever the apiKey is; agent tokens carry it (claim `kep`) and are refused
   * once it changed. Absent on records made before it existed (treated as "").
   */
  keyEpoch?: string;
  createdAt: string;
  updatedAt: string;
}

/** What responses show: never the key, its hash or its lookup id. */
export interface AgentView {
  id: string;
  orgId: string;
  walletName: string;
  agentEndpoint: string;
  did: string;
  verkey: string;
  autoAcceptCredentials: AutoAcceptPolicy;
  autoAcceptProofs: ProofAutoAcceptPolicy;
  createdAt: string;
  updatedAt: string;
}

/** The public view of a record. */
export function agentView(r: AgentRecord): AgentView {
  return {
    id: r.id,
    orgId: r.orgId,
    walletName: r.walletName,
    agentEndpoint: r.agentEndpoint,
    did: r.did,
    verkey: r.verkey,
    autoAcceptCredentials: r.autoAcceptCredentials,
    autoAcceptProofs: r.autoAcceptProofs ?? "never",
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** Reads the org's agent record with its versionstamp. */
export async function readAgent(
  kv: Deno.Kv,
  orgId: string,
): Promise<Deno.KvEntryMaybe<AgentRecord>> {
  return await kv.get<AgentRecord>(keys.agent(orgId));
}

/** Read access to the org agents, for the features that act for an org's agent. */
export class AgentDirectory {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** The stored record of the org's agent, or undefined. */
  async find(orgId: string): Promise<AgentRecord | undefined> {
    return (await readAgent(this.#kv, orgId)).value ?? undefined;
  }
}
