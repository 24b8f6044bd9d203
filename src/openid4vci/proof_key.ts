/**
 * The key that proves possession for one credential configuration, from the org's wallet:
 *
 * - EdDSA with the agent's Ed25519 key when the issuer takes it (or names no algorithms);
 * - else ES256 with the agent's P-256 key (made on first need, see `agents/p256_key.ts`);
 * - the key named as the issuer binds: a `did:key` URL when it binds to DIDs (or names no method),
 *   else a `jwk` header, else a `did:jwk` URL.
 *
 * The credential's `cnf` must then name this key (checked in `credentials/sd_jwt/verify.ts`).
 *
 * @module
 */
import type { JwtSigner } from "@openid4vc/oauth2";
import type { CredentialConfigurationSupportedWithFormats } from "@openid4vc/openid4vci";
import * as jose from "jose";
import { didJwkUrl, p256DidKey, type Wallet } from "../agents/mod.ts";
import { b64u, verkeyToDidKey } from "../crypto/mod.ts";
import { conflict } from "../base/mod.ts";
import { CredentialRejected } from "../credentials/mod.ts";

/** The proof key of one configuration. The private key stays in memory only. */
export interface ProofKey {
  alg: string;
  signer: JwtSigner;
  /** The DID URL the proof names, when it names one (`cnf.kid` must then be it). */
  kid?: string;
  publicJwk: jose.JWK;
  privateKey: CryptoKey | Uint8Array;
}

/** The public parts of a proof key: what a credential's `cnf` is checked against later. */
export interface HolderBinding {
  kid?: string;
  publicJwk: jose.JWK;
}

type Config = CredentialConfigurationSupportedWithFormats | Record<string, unknown>;

/** The alg of the proof, from the configuration's `proof_signing_alg_values_supported`. */
export function proofAlg(config: Config): "EdDSA" | "Ed25519" | "ES256" {
  const jwt = (config.proof_types_supported as Record<string, { [k: string]: unknown }> | undefined)
    ?.jwt;
  const algs = jwt?.proof_signing_alg_values_supported;
  if (!Array.isArray(algs)) return "EdDSA";
  if (algs.includes("EdDSA")) return "EdDSA";
  if (algs.includes("Ed25519")) return "Ed25519";
  if (algs.includes("ES256")) return "ES256";
  throw new CredentialRejected(
    `the issuer accepts proofs signed with ${
      algs.join(", ")
    }; the org's wallet signs EdDSA (Ed25519) and ES256 (P-256)`,
  );
}

/** How the proof names the key: a did:key URL, a JWK, or a did:jwk URL. */
function binding(config: Config): "did:key" | "jwk" | "did:jwk" {
  const m = config.cryptographic_binding_methods_supported;
  if (!Array.isArray(m) || m.length === 0) return "did:key";
  if (m.some((x) => x === "did" || x === "did:key" || x === "did:*")) return "did:key";
  if (m.includes("jwk")) return "jwk";
  if (m.includes("did:jwk")) return "did:jwk";
  throw new CredentialRejected(
    `the issuer binds credentials to ${
      m.join(", ")
    }; this service's wallet offers did:key, jwk and did:jwk`,
  );
}

/** The proof key for `config`, from the wallet of `orgId`'s agent. */
export async function proofKey(
  wallet: Wallet,
  agent: { orgId: string; agentId: string; keyId: string },
  config: Config,
  now: number,
): Promise<ProofKey> {
  const alg = proofAlg(config);
  let publicJwk: jose.JWK;
  let privateKey: CryptoKey | Uint8Array;
  let didKey: string;
  if (alg === "ES256") {
    const key = await wallet.p256Key(agent.orgId, agent.agentId, now);
    publicJwk = { ...key.publicJwk };
    privateKey = key.privateKey;
    didKey = p256DidKey(key.publicJwk);
  } else {
    const key = await wallet.openKey(agent.orgId, agent.keyId);
    if (!key) {
      throw conflict(
        `The agent key of organization "${agent.orgId}" is not available; configure the agent again.`,
      );
    }
    publicJwk = { kty: "OKP", crv: "Ed25519", x: b64u(key.publicKey) };
    privateKey = await jose.importJWK(
      { ...publicJwk, d: b64u(key.secretKey.slice(0, 32)) },
      alg,
    ) as CryptoKey;
    key.secretKey.fill(0);
    didKey = verkeyToDidKey(key.verkey);
  }
  switch (binding(config)) {
    case "did:key": {
      const kid = `${didKey}#${didKey.slice("did:key:".length)}`;
      return { alg, signer: { method: "did", didUrl: kid, alg }, kid, publicJwk, privateKey };
    }
    case "did:jwk": {
      const kid = didJwkUrl(publicJwk);
      return { alg, signer: { method: "did", didUrl: kid, alg }, kid, publicJwk, privateKey };
    }
    case "jwk":
      return {
        alg,
        signer: { method: "jwk", publicJwk: publicJwk as never, alg },
        publicJwk,
        privateKey,
      };
  }
}
