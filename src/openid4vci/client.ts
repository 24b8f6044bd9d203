/**
 * An `Openid4vciClient` of `@openid4vc/openid4vci` with this service's callbacks: `fetch` over the
 * safe outbound client, SHA-2 from `@noble/hashes`, randomness from WebCrypto, anonymous client
 * authentication (the pre-authorized code flow), and JWT signing with the proof keys lent to it.
 *
 * @module
 */
import type { CallbackContext, JwtSigner, Oauth2Client } from "@openid4vc/oauth2";
import type { Openid4vciClient } from "@openid4vc/openid4vci";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import * as jose from "jose";
import type { SafeFetch } from "../outbound/mod.ts";
import { issuerFetch } from "./issuer_fetch.ts";
import type { Oid4vcLibraries } from "./library.ts";
import type { ProofKey } from "./proof_key.ts";

const HASHES: Record<string, (d: Uint8Array) => Uint8Array> = {
  "sha-256": sha256,
  "sha-384": sha384,
  "sha-512": sha512,
};

/** The libraries' callbacks: `signJwt` signs with `keys` (each found by its `signer` object). */
function callbacks(
  libs: Oid4vcLibraries,
  safeFetch: SafeFetch,
  keys: ProofKey[],
): Omit<CallbackContext, "verifyJwt" | "decryptJwe" | "encryptJwe"> {
  return {
    fetch: issuerFetch(safeFetch),
    hash: (data, alg) => {
      const h = HASHES[String(alg).toLowerCase()];
      if (!h) throw new Error(`hash ${alg} is not supported`);
      return h(data);
    },
    generateRandom: (n) => crypto.getRandomValues(new Uint8Array(n)),
    clientAuthentication: libs.oauth2.clientAuthenticationAnonymous(),
    signJwt: async (signer: JwtSigner, { header, payload }) => {
      const key = keys.find((k) => k.signer === signer);
      if (!key) throw new Error("no proof key was lent for this signer");
      const jwt = await new jose.SignJWT(payload as jose.JWTPayload)
        .setProtectedHeader(header as jose.JWTHeaderParameters)
        .sign(key.privateKey);
      return { jwt, signerJwk: key.publicJwk as never };
    },
  };
}

/**
 * An OpenID4VCI client whose `signJwt` signs with `keys` (each found by its `signer` object,
 * which the library hands back unchanged). Keys can be added to the array after it is made.
 */
export function issuerClient(
  libs: Oid4vcLibraries,
  safeFetch: SafeFetch,
  keys: ProofKey[] = [],
): Openid4vciClient {
  return new libs.vci.Openid4vciClient({ callbacks: callbacks(libs, safeFetch, keys) });
}

/** An OAuth 2 client (the refresh of a deferred issuance's access token). */
export function oauthClient(libs: Oid4vcLibraries, safeFetch: SafeFetch): Oauth2Client {
  return new libs.oauth2.Oauth2Client({
    callbacks: { ...callbacks(libs, safeFetch, []), verifyJwt: () => Promise.reject() } as never,
  });
}
