/**
 * The org's key a credential is bound to: a stored SD-JWT VC's `cnf` (a `kid` that is the did:key
 * of an org wallet key, or a `jwk`) names the key that signs its key binding JWT; a JSON-LD
 * presentation is signed by the org's agent key (its did:key). Private keys stay in the wallet
 * and in memory only for the signature.
 *
 * Today the org wallet holds Ed25519 keys; the OpenID4VCI work adds P-256 keys (issue 26), and a
 * credential bound to one is found here by the same `cnf` comparison once the wallet can open it.
 *
 * @module
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import type { Wallet, WalletKey } from "../agents/mod.ts";
import { b64u, verkeyToDidKey } from "../crypto/mod.ts";
import { conflict } from "../errors.ts";
import type { KbSigner } from "./sd_jwt_present.ts";

/** An org key that can sign: its DID URL and its signer. */
export interface OrgSigningKey {
  /** `did:key:z6Mk…#z6Mk…`. */
  kid: string;
  did: string;
  /** The opened key (for JSON-LD signatures). */
  key: WalletKey;
  signer: KbSigner;
}

/** The org's agent key, opened, or 409 naming why not. */
export async function orgAgentKey(wallet: Wallet, orgId: string): Promise<OrgSigningKey> {
  const agent = await wallet.identity(orgId);
  const key = agent ? await wallet.openKey(orgId, agent.keyId) : undefined;
  if (!key) {
    throw conflict(
      `Organization "${orgId}" has no usable agent key; configure its agent (POST /orgs/${orgId}/agents/configure).`,
    );
  }
  const did = verkeyToDidKey(key.verkey);
  const seed = key.secretKey.slice(0, 32);
  return {
    kid: `${did}#${did.slice("did:key:".length)}`,
    did,
    key,
    signer: {
      alg: "EdDSA",
      sign: (input) => Promise.resolve(b64u(ed25519.sign(new TextEncoder().encode(input), seed))),
    },
  };
}

/** Whether `cnf` names `key` (by did:key `kid`, with or without fragment, or by `jwk`). */
export function cnfNames(cnf: unknown, key: OrgSigningKey): boolean {
  if (!cnf || typeof cnf !== "object") return false;
  const c = cnf as { kid?: unknown; jwk?: { kty?: unknown; crv?: unknown; x?: unknown } };
  if (typeof c.kid === "string") return c.kid === key.kid || c.kid === key.did;
  const jwk = c.jwk;
  return !!jwk && jwk.kty === "OKP" && jwk.crv === "Ed25519" && jwk.x === b64u(key.key.publicKey);
}

/** The signer of key binding JWTs for a credential with `cnf`, or 409 naming the credential. */
export function kbSignerFor(
  cnf: unknown,
  key: OrgSigningKey,
  credentialId: string,
): KbSigner {
  if (!cnfNames(cnf, key)) {
    throw conflict(
      `Credential "${credentialId}" is bound (cnf) to a key this organization's wallet does not hold, so it cannot be presented.`,
    );
  }
  return key.signer;
}
