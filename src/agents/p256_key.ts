/**
 * The org agent's P-256 key: ES256 proofs of possession for credential issuers that do not take
 * EdDSA. Made on first need (WebCrypto), one per agent, kept like the Ed25519 keys: the private
 * scalar `d` sealed with SECRETS_KEY (AAD {@link p256KeyAad}), opened only into a non-extractable
 * signing key in memory, never returned or logged. Removed with the agent's other keys.
 *
 * Storage: `keys.agentP256Key(orgId, agentId)` → {@link P256KeyRecord}, created with a
 * versionstamp check so two first uses at once keep one key.
 *
 * @module
 */
import { base58 } from "@scure/base";
import { b64u, fromB64u, type Resealable, type SecretBox } from "../crypto/mod.ts";
import { atomicUpdate, keys } from "../kv/mod.ts";

/** The public half of the key as a JWK (`kty` EC, `crv` P-256). */
export interface P256PublicJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
}

/** The stored key. */
export interface P256KeyRecord {
  orgId: string;
  /** The `AgentRecord.id` the key belongs to. */
  agentId: string;
  publicJwk: P256PublicJwk;
  /** The private scalar `d` (base64url text), sealed (AAD {@link p256KeyAad}). */
  sealedD: string;
  createdAt: string;
}

/** An opened P-256 key: the public JWK and a signing key that cannot be exported. */
export interface P256Key {
  publicJwk: P256PublicJwk;
  privateKey: CryptoKey;
}

/** AAD that binds a sealed P-256 scalar to its place. */
export const p256KeyAad = (orgId: string, agentId: string) => `agent_p256_key:${orgId}:${agentId}`;

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;

async function open(record: P256KeyRecord, secrets: SecretBox): Promise<P256Key> {
  const d = await secrets.openString(record.sealedD, p256KeyAad(record.orgId, record.agentId));
  const privateKey = await crypto.subtle.importKey(
    "jwk",
    { ...record.publicJwk, d },
    ALGORITHM,
    false,
    ["sign"],
  );
  return { publicJwk: record.publicJwk, privateKey };
}

/** The P-256 key of agent `agentId` of `orgId` if it was made, opened; else undefined. */
export async function readP256Key(
  kv: Deno.Kv,
  secrets: SecretBox,
  orgId: string,
  agentId: string,
): Promise<P256Key | undefined> {
  const stored = await kv.get<P256KeyRecord>(keys.agentP256Key(orgId, agentId));
  return stored.value ? await open(stored.value, secrets) : undefined;
}

/** did:key of a P-256 public JWK: multicodec p256-pub (0x1200) and the compressed point. */
export function p256DidKey(jwk: { x: string; y: string }): string {
  const x = fromB64u(jwk.x);
  const y = fromB64u(jwk.y);
  const bytes = new Uint8Array(2 + 33);
  bytes.set([0x80, 0x24, (y[31]! & 1) === 0 ? 0x02 : 0x03]);
  bytes.set(x, 3);
  return `did:key:z${base58.encode(bytes)}`;
}

/** The did:jwk URL (`#0`) of a public JWK, its members in the order given. */
export const didJwkUrl = (jwk: object): string =>
  `did:jwk:${b64u(new TextEncoder().encode(JSON.stringify(jwk)))}#0`;

/** The P-256 key of agent `agentId` of `orgId`, made and stored on first need. */
export async function openP256Key(
  kv: Deno.Kv,
  secrets: SecretBox,
  orgId: string,
  agentId: string,
  now: number,
): Promise<P256Key> {
  const found = await readP256Key(kv, secrets, orgId, agentId);
  if (found !== undefined) return found;
  const key = keys.agentP256Key(orgId, agentId);
  // Made once: two first uses at once both try, the first commit wins and the other reads it.
  const record = await atomicUpdate(kv, async (op) => {
    const stored = await kv.get<P256KeyRecord>(key);
    if (stored.value) return stored.value;
    const pair = await crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
    const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
    const made: P256KeyRecord = {
      orgId,
      agentId,
      publicJwk: { kty: "EC", crv: "P-256", x: jwk.x!, y: jwk.y! },
      sealedD: await secrets.seal(jwk.d!, p256KeyAad(orgId, agentId)),
      createdAt: new Date(now).toISOString(),
    };
    op.check(stored).set(key, made);
    return made;
  }, {
    conflict: () => new Error(`the P-256 key of organization "${orgId}" could not be stored`),
  });
  return await open(record, secrets);
}

/** For a SECRETS_KEY rotation: every agent's P-256 key. */
export const p256KeyResealable: Resealable<P256KeyRecord> = {
  name: "wallet P-256 keys",
  select: { prefix: keys.agentP256KeysPrefix() },
  async reseal(value, box) {
    const sealed = await box.reseal(value.sealedD, p256KeyAad(value.orgId, value.agentId));
    return sealed === undefined ? undefined : { ...value, sealedD: sealed };
  },
};
