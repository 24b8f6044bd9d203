/**
 * The service's own JWT signing key (Ed25519, EdDSA) for agent tokens.
 *
 * Created once per database, race-safely (`check(versionstamp: null)`; a loser reads the
 * winner's key), stored at `keys.serviceSigningKey()` with the private JWK sealed with
 * SECRETS_KEY. {@link loadServiceSigner} also registers the issuer with the token verifier, so
 * agent tokens are accepted beside identity provider tokens.
 *
 * @module
 */
import * as jose from "jose";
import type { Config } from "../config/mod.ts";
import type { Resealable, SecretBox } from "../crypto/mod.ts";
import { unauthorized } from "../base/mod.ts";
import type { TokenVerifier } from "../http/mod.ts";
import { keys } from "../kv/mod.ts";
import { readAgent } from "./record.ts";

/** Stored form of the signing key. */
interface StoredSigningKey {
  kid: string;
  alg: "EdDSA";
  publicJwk: jose.JWK;
  /** The private JWK as JSON, sealed with AAD {@link AAD}. */
  sealedPrivateJwk: string;
  createdAt: string;
}

const AAD = "service_signing_key";

/** Agent token lifetime: 15 minutes. */
export const AGENT_TOKEN_TTL_SECONDS = 15 * 60;

/** Issuer (and audience) of agent tokens: `${PUBLIC_URL}/agent`. */
export function agentIssuer(config: Pick<Config, "publicUrl">): string {
  return `${config.publicUrl}/agent`;
}

/** Signs agent tokens. */
export interface ServiceSigner {
  issuer: string;
  kid: string;
  /**
   * Mints the org-scoped agent token (role `member` in `orgId`), valid for 15 minutes unless the
   * agent's `keyEpoch` changes first (its apiKey rotated, or the agent removed).
   */
  mintAgentToken(orgId: string, keyEpoch: string): Promise<{ token: string; expiresIn: number }>;
}

/** What the signer is loaded from. */
export interface ServiceSignerDeps {
  kv: Deno.Kv;
  secrets: SecretBox;
  config: Pick<Config, "publicUrl" | "auth">;
  verifier: TokenVerifier;
  now: () => number;
}

async function loadOrCreate(deps: ServiceSignerDeps): Promise<StoredSigningKey> {
  const existing = await deps.kv.get<StoredSigningKey>(keys.serviceSigningKey());
  if (existing.value) return existing.value;
  const { privateKey, publicKey } = await jose.generateKeyPair("EdDSA", {
    crv: "Ed25519",
    extractable: true,
  });
  const publicJwk = await jose.exportJWK(publicKey);
  const kid = await jose.calculateJwkThumbprint(publicJwk);
  const privateJwk = await jose.exportJWK(privateKey);
  const stored: StoredSigningKey = {
    kid,
    alg: "EdDSA",
    publicJwk: { ...publicJwk, kid, alg: "EdDSA", use: "sig" },
    sealedPrivateJwk: await deps.secrets.seal(JSON.stringify(privateJwk), AAD),
    createdAt: new Date(deps.now()).toISOString(),
  };
  const res = await deps.kv.atomic()
    .check({ key: keys.serviceSigningKey(), versionstamp: null })
    .set(keys.serviceSigningKey(), stored)
    .commit();
  if (res.ok) return stored;
  const winner = await deps.kv.get<StoredSigningKey>(keys.serviceSigningKey());
  if (!winner.value) throw new Error("service signing key vanished while being created");
  return winner.value;
}

/** For a SECRETS_KEY rotation: the signing key record. */
export const signingKeyResealable: Resealable<StoredSigningKey> = {
  name: "service signing key",
  select: { key: keys.serviceSigningKey() },
  async reseal(value, box) {
    const sealed = await box.reseal(value.sealedPrivateJwk, AAD);
    return sealed === undefined ? undefined : { ...value, sealedPrivateJwk: sealed };
  },
};

/**
 * Loads (or creates once) the service signing key and trusts its issuer in `deps.verifier`.
 * Throws when the stored key does not open (SECRETS_KEY changed) or the agent issuer would be the
 * identity provider's.
 */
export async function loadServiceSigner(deps: ServiceSignerDeps): Promise<ServiceSigner> {
  const stored = await loadOrCreate(deps);
  let privateJwk: jose.JWK;
  try {
    privateJwk = JSON.parse(await deps.secrets.openString(stored.sealedPrivateJwk, AAD));
  } catch (err) {
    throw new Error(
      "The service signing key in KV cannot be decrypted with this SECRETS_KEY.",
      { cause: err },
    );
  }
  const privateKey = await jose.importJWK(privateJwk, "EdDSA");
  const publicKey = await jose.importJWK(stored.publicJwk, "EdDSA");
  const issuer = agentIssuer(deps.config);
  if (issuer === deps.config.auth.issuer) {
    throw new Error(`AUTH_ISSUER must differ from the agent token issuer "${issuer}".`);
  }
  deps.verifier.trust({
    issuer,
    audience: [issuer],
    algorithms: ["EdDSA"],
    key: publicKey,
    kind: "agent",
    stillValid: async (p) => {
      const orgId = p.sub.startsWith("agent:") ? p.sub.slice(6) : "";
      const agent = orgId ? (await readAgent(deps.kv, orgId)).value : null;
      if (!agent || (agent.keyEpoch ?? "") !== (p.keyEpoch ?? "")) {
        throw unauthorized(
          "This agent token is no longer valid: the organization's API key was rotated or its " +
            "agent removed. Get a new token from POST /agent/token.",
          true,
        );
      }
    },
  });
  return {
    issuer,
    kid: stored.kid,
    async mintAgentToken(orgId, keyEpoch) {
      const now = Math.floor(deps.now() / 1000);
      const token = await new jose.SignJWT({
        resource_access: { [orgId]: { roles: ["member"] } },
        org_id: orgId,
        kep: keyEpoch,
      })
        .setProtectedHeader({ alg: "EdDSA", kid: stored.kid, typ: "JWT" })
        .setIssuer(issuer)
        .setAudience(issuer)
        .setSubject(`agent:${orgId}`)
        .setIssuedAt(now)
        .setExpirationTime(now + AGENT_TOKEN_TTL_SECONDS)
        .setJti(crypto.randomUUID())
        .sign(privateKey);
      return { token, expiresIn: AGENT_TOKEN_TTL_SECONDS };
    },
  };
}
