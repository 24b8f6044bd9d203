/**
 * The credential request of the pre-authorized code flow: after the token, a nonce (the nonce
 * endpoint, else `c_nonce` of the token answer), a proof of possession (`openid4vci-proof+jwt`,
 * EdDSA, the org's did:key as `kid`, or its `jwk` when the issuer binds to JWKs only), and one
 * credential request per offered configuration: OpenID4VCI 1.0 (`credential_configuration_id`,
 * `proofs`) or drafts 13–14 (`format`, `vct`, `proof`).
 *
 * @module
 */
import * as jose from "jose";
import { IssuerError, type IssuerHttp } from "./issuer_http.ts";
import { str } from "./json.ts";
import type { CredentialConfiguration, IssuerProfile } from "./offer.ts";
import { CredentialRejected } from "./sd_jwt.ts";

/** The org's proof key: the wallet's agent key, as a did:key URL and a JWK. */
export interface ProofKey {
  kid: string;
  publicJwk: jose.JWK;
  privateKey: CryptoKey | Uint8Array;
}

/** How the proof names the holder key for this configuration. */
function binding(c: CredentialConfiguration): "kid" | "jwk" {
  const m = c.bindingMethods;
  if (!m || m.length === 0) return "kid";
  if (m.some((x) => x === "did" || x === "did:key" || x === "did:*")) return "kid";
  if (m.includes("jwk")) return "jwk";
  throw new CredentialRejected(
    `the issuer binds credentials to ${m.join(", ")}; this service's wallet offers did:key and jwk`,
  );
}

function proofAlg(c: CredentialConfiguration): string {
  const algs = c.proofAlgs;
  if (!algs || algs.includes("EdDSA")) return "EdDSA";
  if (algs.includes("Ed25519")) return "Ed25519";
  throw new CredentialRejected(
    `the issuer accepts proofs signed with ${
      algs.join(", ")
    }; the org's wallet key is Ed25519 (EdDSA)`,
  );
}

/** Requests every offered credential; the compact SD-JWTs by configuration. */
export async function requestCredentials(
  http: IssuerHttp,
  profile: IssuerProfile,
  token: Record<string, unknown>,
  key: ProofKey,
  now: () => number,
): Promise<{ configurationId: string; compact: string }[]> {
  const accessToken = str(token.access_token);
  if (!accessToken) throw new IssuerError("The issuer's token answer has no access_token.");
  const tokenType = str(token.token_type) ?? "Bearer";
  if (!/^bearer$/i.test(tokenType)) {
    throw new IssuerError(`The issuer gave a ${tokenType} token; this service uses Bearer tokens.`);
  }
  let nonce = str(token.c_nonce);
  if (profile.nonceEndpoint) {
    const answer = await http.post("nonce", profile.nonceEndpoint, { form: {} });
    nonce = str(answer.c_nonce) ?? nonce;
  }
  const out: { configurationId: string; compact: string }[] = [];
  for (const [configurationId, config] of Object.entries(profile.configurations)) {
    const alg = proofAlg(config);
    const header: jose.JWTHeaderParameters = binding(config) === "kid"
      ? { alg, typ: "openid4vci-proof+jwt", kid: key.kid }
      : { alg, typ: "openid4vci-proof+jwt", jwk: key.publicJwk };
    const proof = await new jose.SignJWT({ ...(nonce ? { nonce } : {}) })
      .setProtectedHeader(header)
      .setAudience(profile.credentialIssuer)
      .setIssuedAt(Math.floor(now() / 1000))
      .sign(key.privateKey);
    const body = profile.v1
      ? { credential_configuration_id: configurationId, proofs: { jwt: [proof] } }
      : {
        format: config.format,
        ...(config.vct ? { vct: config.vct } : {}),
        proof: { proof_type: "jwt", jwt: proof },
      };
    const answer = await http.post("credential", profile.credentialEndpoint, { json: body }, {
      authorization: `Bearer ${accessToken}`,
    });
    nonce = str(answer.c_nonce) ?? nonce;
    const list = Array.isArray(answer.credentials) ? answer.credentials : undefined;
    const first = list?.[0];
    const compact = str(answer.credential) ??
      str(first) ??
      str((first as Record<string, unknown> | undefined)?.credential);
    if (!compact) {
      if (answer.transaction_id !== undefined) {
        throw new CredentialRejected(
          "the issuer deferred the credential, which this service does not support",
        );
      }
      throw new CredentialRejected("the issuer's credential answer holds no credential");
    }
    out.push({ configurationId, compact });
  }
  return out;
}
