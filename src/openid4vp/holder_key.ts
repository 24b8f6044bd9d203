/**
 * The org's key a credential is bound to: a stored SD-JWT VC's `cnf` (a `kid` that is the did:key
 * or did:jwk of an org wallet key, or a `jwk`) names the key that signs its key binding JWT: the
 * agent's Ed25519 key (EdDSA), or the agent's P-256 key (ES256) for credentials from issuers that
 * take no EdDSA proofs (issue 26). A JSON-LD presentation is signed by the org's agent key (its
 * did:key). Private keys stay in the wallet and in memory only for the signature.
 *
 * @module
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { didJwkUrl, p256DidKey, type P256Key, type Wallet, type WalletKey } from "../agents/mod.ts";
import { b64u, verkeyToDidKey } from "../crypto/mod.ts";
import { conflict } from "../base/mod.ts";
import type { KbSigner } from "../credentials/mod.ts";

/** An org key that can sign: its DID URL and its signer. */
export interface OrgSigningKey {
  /** `did:key:z6Mk…#z6Mk…`. */
  kid: string;
  did: string;
  /** The `AgentRecord.id` of the org's agent (its P-256 key belongs to it). */
  agentId: string;
  /** The opened key (for JSON-LD signatures). */
  key: WalletKey;
  signer: KbSigner;
}

/** The org's agent key, opened (the caller wipes `key.secretKey` after), or 409 naming why not. */
export async function orgAgentKey(wallet: Wallet, orgId: string): Promise<OrgSigningKey> {
  const agent = await wallet.identity(orgId);
  const key = agent ? await wallet.openKey(orgId, agent.keyId) : undefined;
  if (!key) {
    throw conflict(
      `Organization "${orgId}" has no usable agent key; configure its agent (POST /orgs/${orgId}/agents/configure).`,
    );
  }
  const did = verkeyToDidKey(key.verkey);
  // A view, not a copy: wiping `key.secretKey` after the answer wipes the seed too.
  const seed = key.secretKey.subarray(0, 32);
  return {
    kid: `${did}#${did.slice("did:key:".length)}`,
    did,
    agentId: agent!.agentId,
    key,
    signer: {
      alg: "EdDSA",
      sign: (input) => Promise.resolve(b64u(ed25519.sign(new TextEncoder().encode(input), seed))),
    },
  };
}

/** Whether `cnf` names the agent's Ed25519 key (did:key `kid` with or without fragment, did:jwk, or `jwk`). */
export function cnfNames(cnf: unknown, key: OrgSigningKey): boolean {
  if (!cnf || typeof cnf !== "object") return false;
  const c = cnf as { kid?: unknown; jwk?: { kty?: unknown; crv?: unknown; x?: unknown } };
  const x = b64u(key.key.publicKey);
  if (typeof c.kid === "string") {
    return c.kid === key.kid || c.kid === key.did ||
      c.kid === didJwkUrl({ kty: "OKP", crv: "Ed25519", x });
  }
  const jwk = c.jwk;
  return !!jwk && jwk.kty === "OKP" && jwk.crv === "Ed25519" && jwk.x === x;
}

/** Whether `cnf` names the agent's P-256 key (did:key, did:jwk or `jwk`). */
function cnfNamesP256(cnf: unknown, key: P256Key): boolean {
  if (!cnf || typeof cnf !== "object") return false;
  const c = cnf as {
    kid?: unknown;
    jwk?: { kty?: unknown; crv?: unknown; x?: unknown; y?: unknown };
  };
  const { x, y } = key.publicJwk;
  if (typeof c.kid === "string") {
    const did = p256DidKey(key.publicJwk);
    return c.kid === did || c.kid === `${did}#${did.slice("did:key:".length)}` ||
      c.kid === didJwkUrl(key.publicJwk);
  }
  const jwk = c.jwk;
  return !!jwk && jwk.kty === "EC" && jwk.crv === "P-256" && jwk.x === x && jwk.y === y;
}

/** An ES256 signer over a P-256 key (WebCrypto's ECDSA signature is JWS's `r || s`). */
function es256Signer(key: P256Key): KbSigner {
  return {
    alg: "ES256",
    sign: async (input) =>
      b64u(
        new Uint8Array(
          await crypto.subtle.sign(
            { name: "ECDSA", hash: "SHA-256" },
            key.privateKey,
            new TextEncoder().encode(input),
          ),
        ),
      ),
  };
}

/**
 * The signer of key binding JWTs for a credential with `cnf`: the agent's Ed25519 key, or its
 * P-256 key when the credential is bound to that; 409 naming the credential when neither.
 */
export async function kbSignerFor(
  wallet: Wallet,
  orgId: string,
  cnf: unknown,
  key: OrgSigningKey,
  credentialId: string,
): Promise<KbSigner> {
  if (cnfNames(cnf, key)) return key.signer;
  const p256 = await wallet.findP256Key(orgId, key.agentId);
  if (p256 && cnfNamesP256(cnf, p256)) return es256Signer(p256);
  throw conflict(
    `Credential "${credentialId}" is bound (cnf) to a key this organization's wallet does not hold, so it cannot be presented.`,
  );
}
