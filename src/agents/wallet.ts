/**
 * The org wallet: Ed25519 keys for DIDComm (and EdDSA proofs), and one P-256 key per agent for
 * ES256 proofs (`p256_key.ts`), private halves sealed with SECRETS_KEY.
 *
 * Storage: `keys.agentKey(orgId, keyId)` → {@link WalletKeyRecord} (the 32-byte seed sealed with
 * AAD `agent_key:<orgId>:<keyId>`), and `keys.agentByVerkey(verkey)` → {@link WalletKeyPointer}.
 * Both are written in one atomic operation; the pointer is checked absent so two keys never share
 * a verkey. The DIDComm layer finds an inbound envelope's org with {@link Wallet.findByVerkey}
 * and creates per-connection keys with {@link Wallet.newKey} + {@link Wallet.write}.
 *
 * @module
 */
import {
  bytesToVerkey,
  generateEd25519KeyPair,
  type Resealable,
  type SecretBox,
} from "../crypto/mod.ts";
import { conflict } from "../base/mod.ts";
import { keys, timeId } from "../kv/mod.ts";
import { openP256Key, type P256Key, readP256Key } from "./p256_key.ts";
import { type AgentRecord, type AutoAcceptPolicy, readAgent } from "./record.ts";

/** A stored wallet key. */
export interface WalletKeyRecord {
  keyId: string;
  orgId: string;
  /** The `AgentRecord.id` the key belongs to; a key of a removed agent never opens again. */
  agentId: string;
  /** base58 Ed25519 public key. */
  verkey: string;
  /** `agent`: the key of the org's agent DID; `connection`: a per-connection key. */
  purpose: "agent" | "connection";
  /** The 32-byte Ed25519 seed, sealed (`SecretBox.seal`, AAD {@link walletKeyAad}). */
  sealedSeed: string;
  createdAt: string;
}

/** Value of `keys.agentByVerkey(verkey)`. */
export interface WalletKeyPointer {
  orgId: string;
  keyId: string;
}

/** An opened wallet key: what envelope packing and unpacking needs. */
export interface WalletKey {
  orgId: string;
  keyId: string;
  verkey: string;
  publicKey: Uint8Array;
  /** 64-byte libsodium Ed25519 secret key (`seed || publicKey`). Keep in memory only. */
  secretKey: Uint8Array;
}

/** The org's agent identity as the DIDComm layer needs it (no secrets). */
export interface OrgWallet {
  orgId: string;
  /** `AgentRecord.id`: pass it to {@link newWalletKey} for per-connection keys. */
  agentId: string;
  /** DIDComm `label` (the configured `walletName`). */
  label: string;
  did: string;
  verkey: string;
  keyId: string;
  agentEndpoint: string;
  autoAcceptCredentials: AutoAcceptPolicy;
}

/** AAD that binds a sealed seed to its place. */
export const walletKeyAad = (orgId: string, keyId: string) => `agent_key:${orgId}:${keyId}`;

/** The org wallets of the service (one per configured org), on KV and SECRETS_KEY. */
export class Wallet {
  readonly #kv: Deno.Kv;
  readonly #secrets: SecretBox;

  constructor(kv: Deno.Kv, secrets: SecretBox) {
    this.#kv = kv;
    this.#secrets = secrets;
  }

  /**
   * Generates a key for `orgId` and seals its seed. Nothing is written: add the result to an
   * atomic operation with {@link Wallet.write} (together with whatever uses the key).
   */
  async newKey(
    orgId: string,
    agentId: string,
    opts: { purpose?: WalletKeyRecord["purpose"]; now?: number } = {},
  ): Promise<{ record: WalletKeyRecord; publicKey: Uint8Array }> {
    const now = opts.now ?? Date.now();
    const kp = generateEd25519KeyPair();
    const keyId = timeId(now);
    const record: WalletKeyRecord = {
      keyId,
      orgId,
      agentId,
      verkey: kp.verkey,
      purpose: opts.purpose ?? "connection",
      sealedSeed: await this.#secrets.seal(kp.seed, walletKeyAad(orgId, keyId)),
      createdAt: new Date(now).toISOString(),
    };
    kp.seed.fill(0);
    kp.secretKey.fill(0);
    return { record, publicKey: kp.publicKey };
  }

  /** Adds a wallet key and its verkey pointer to `op` (the pointer must not exist yet). */
  write(op: Deno.AtomicOperation, record: WalletKeyRecord): void {
    const pointer: WalletKeyPointer = { orgId: record.orgId, keyId: record.keyId };
    op.check({ key: keys.agentKey(record.orgId, record.keyId), versionstamp: null })
      .check({ key: keys.agentByVerkey(record.verkey), versionstamp: null })
      .set(keys.agentKey(record.orgId, record.keyId), record)
      .set(keys.agentByVerkey(record.verkey), pointer);
  }

  /** Opens a stored key. Throws when the seal does not open (wrong SECRETS_KEY, tampering). */
  async open(record: WalletKeyRecord): Promise<WalletKey> {
    const seed = await this.#secrets.open(
      record.sealedSeed,
      walletKeyAad(record.orgId, record.keyId),
    );
    const kp = generateEd25519KeyPair(seed);
    seed.fill(0);
    if (bytesToVerkey(kp.publicKey) !== record.verkey) {
      throw new Error(
        `wallet key ${record.keyId} of org ${record.orgId} does not match its verkey`,
      );
    }
    return {
      orgId: record.orgId,
      keyId: record.keyId,
      verkey: record.verkey,
      publicKey: kp.publicKey,
      secretKey: kp.secretKey,
    };
  }

  /** The stored key `keyId` of `orgId`, opened; undefined when it no longer exists. */
  async openKey(orgId: string, keyId: string): Promise<WalletKey | undefined> {
    const stored = await this.#kv.get<WalletKeyRecord>(keys.agentKey(orgId, keyId));
    return stored.value ? await this.open(stored.value) : undefined;
  }

  /**
   * Finds the org and opened key owning a base58 verkey (an inbound envelope's recipient `kid`).
   * Undefined when no configured org holds it (also for leftovers of a removed agent).
   */
  async findByVerkey(verkey: string): Promise<WalletKey | undefined> {
    const ptr = await this.#kv.get<WalletKeyPointer>(keys.agentByVerkey(verkey));
    if (!ptr.value) return undefined;
    const { orgId, keyId } = ptr.value;
    const [key, agent] = await this.#kv.getMany<[WalletKeyRecord, AgentRecord]>([
      keys.agentKey(orgId, keyId),
      keys.agent(orgId),
    ]);
    if (
      !key?.value || !agent?.value || key.value.verkey !== verkey ||
      key.value.agentId !== agent.value.id
    ) return undefined;
    return await this.open(key.value);
  }

  /**
   * The P-256 key of agent `agentId` of `orgId` (ES256 proofs), made and sealed on first need.
   * The private key is a non-extractable CryptoKey: keep it in memory only.
   */
  p256Key(orgId: string, agentId: string, now = Date.now()): Promise<P256Key> {
    return openP256Key(this.#kv, this.#secrets, orgId, agentId, now);
  }

  /** The P-256 key of agent `agentId` of `orgId` if it was ever made (nothing is created). */
  findP256Key(orgId: string, agentId: string): Promise<P256Key | undefined> {
    return readP256Key(this.#kv, this.#secrets, orgId, agentId);
  }

  /** The org's agent identity (label, DID, verkey, endpoint, auto-accept policy), or undefined. */
  async identity(orgId: string): Promise<OrgWallet | undefined> {
    const r = (await readAgent(this.#kv, orgId)).value;
    if (!r) return undefined;
    return {
      orgId: r.orgId,
      agentId: r.id,
      label: r.walletName,
      did: r.did,
      verkey: r.verkey,
      keyId: r.keyId,
      agentEndpoint: r.agentEndpoint,
      autoAcceptCredentials: r.autoAcceptCredentials,
    };
  }

  /**
   * The org's agent identity; 409 when the org has none, saying to configure one and why it is
   * needed (`needs`: what its wallet holds, e.g. "the keys that sign presentations").
   */
  async requireIdentity(orgId: string, needs: string): Promise<OrgWallet> {
    const agent = await this.identity(orgId);
    if (!agent) {
      throw conflict(
        `Organization "${orgId}" has no configured agent; configure one first (POST /orgs/${orgId}/agents/configure): its wallet holds ${needs}.`,
      );
    }
    return agent;
  }

  /**
   * Deletes the wallet keys of agent `agentId` of `orgId` and their verkey pointers, in batches
   * (each key with its pointer atomically), then the agent's P-256 key. Keys of another agent of the org are left alone, so a
   * removal that races a new configuration cannot take the new agent's keys. Returns the count.
   */
  async deleteKeys(orgId: string, agentId: string): Promise<number> {
    let removed = 0;
    let batch: WalletKeyRecord[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const op = this.#kv.atomic();
      for (const k of batch) {
        op.delete(keys.agentKey(orgId, k.keyId));
        op.delete(keys.agentByVerkey(k.verkey));
      }
      await op.commit();
      removed += batch.length;
      batch = [];
    };
    for await (const e of this.#kv.list<WalletKeyRecord>({ prefix: keys.agentKeyPrefix(orgId) })) {
      if (e.value.agentId !== agentId) continue;
      batch.push(e.value);
      if (batch.length >= 200) await flush();
    }
    await flush();
    await this.#kv.delete(keys.agentP256Key(orgId, agentId));
    return removed;
  }
}

/** For a SECRETS_KEY rotation: every wallet key of every org. */
export const walletKeyResealable: Resealable<WalletKeyRecord> = {
  name: "wallet keys",
  select: { prefix: keys.agentKeysPrefix() },
  async reseal(value, box) {
    const sealed = await box.reseal(value.sealedSeed, walletKeyAad(value.orgId, value.keyId));
    return sealed === undefined ? undefined : { ...value, sealedSeed: sealed };
  },
};
