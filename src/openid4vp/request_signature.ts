/**
 * Verification of a signed request object (JAR), as `@openid4vc/openid4vp` asks for it through its
 * `verifyJwt` callback: a `did` signer is checked with a key of the verifier's DID document
 * (resolved by this service's own resolver), an `x5c` signer with the chain's leaf after the chain
 * is checked against the trust anchors. Every failure is a {@link RequestRefused} naming its rule;
 * the library wraps it, and the caller finds it again in the `cause` chain.
 *
 * @module
 */
import * as jose from "jose";
import {
  type DidResolver,
  keyFromVerificationMethod,
  publicKeyToJwk,
  type VerificationMethod,
} from "../did/mod.ts";
import { refuse } from "./refusal.ts";
import type { TrustAnchors } from "./x509.ts";
import { obj } from "../base/mod.ts";

/** Signature algorithms a request object may use. */
export const REQUEST_ALGS = ["EdDSA", "Ed25519", "ES256", "ES384", "ES512", "PS256", "RS256"];
/** Clock skew allowed on a request object's `exp`, `nbf` and `iat`, in seconds. */
export const SKEW_S = 60;

/** What the library hands the callback (a subset of its `JwtSigner`). */
export type RequestSigner =
  | { method: "did"; didUrl: string; alg: string }
  | { method: "x5c"; x5c: string[]; alg: string }
  | { method: string; alg?: string };

/** What checking a request object needs. */
export interface RequestSignatureDeps {
  resolver: DidResolver;
  anchors?: TrustAnchors;
  now: () => number;
}

/** The identifier part of a client_id (`decentralized_identifier:did:…` → `did:…`). */
function clientIdentifier(clientId: unknown): string {
  const s = typeof clientId === "string" ? clientId : "";
  return s.startsWith("decentralized_identifier:")
    ? s.slice("decentralized_identifier:".length)
    : s.startsWith("x509_san_dns:")
    ? s.slice("x509_san_dns:".length)
    : s;
}

/** The public key of verification method `didUrl` of the client's DID. */
async function didKey(
  didUrl: string,
  payload: Record<string, unknown>,
  alg: string,
  deps: RequestSignatureDeps,
): Promise<jose.CryptoKey | Uint8Array> {
  const did = didUrl.split("#")[0]!;
  const client = clientIdentifier(payload.client_id);
  if (did !== client) {
    refuse(
      "request_signer",
      `the request object is signed with ${didUrl}, a key of ${did}, but the client is ${client}.`,
    );
  }
  const r = await deps.resolver.resolve(did);
  const doc = r.didDocument as Record<string, unknown> | null;
  if (!doc) {
    refuse(
      "request_signer",
      `the verifier DID ${did} does not resolve (${r.didResolutionMetadata.error}: ${
        r.didResolutionMetadata.message ?? ""
      }).`,
    );
  }
  const fragment = didUrl.includes("#") ? didUrl.slice(didUrl.indexOf("#")) : "";
  const matches = (id: unknown) => id === didUrl || (fragment !== "" && id === fragment);
  const vm = (Array.isArray(doc!.verificationMethod) ? doc!.verificationMethod : [])
    .map(obj).find((m) => m && matches(m.id));
  if (!vm) refuse("request_signer", `the DID document of ${did} has no key ${didUrl}.`);
  let jwk = obj(vm!.publicKeyJwk);
  if (!jwk) {
    const k = keyFromVerificationMethod(vm as unknown as VerificationMethod);
    if (!k.ok) refuse("request_signer", `the key ${didUrl} cannot be read: ${k.message}.`);
    jwk = publicKeyToJwk(k.value.keyType, k.value.publicKey) as unknown as Record<string, unknown>;
  }
  try {
    return await jose.importJWK({ ...jwk, alg: undefined } as jose.JWK, alg, { extractable: true });
  } catch (err) {
    return refuse(
      "request_signer",
      `the key ${didUrl} does not fit alg ${alg} (${(err as Error).message}).`,
    );
  }
}

/** Refuses a request object outside its validity (`exp`, `nbf`, `iat` in the future). */
function checkTimes(payload: Record<string, unknown>, nowMs: number): void {
  const now = Math.floor(nowMs / 1000);
  const num = (k: string) => typeof payload[k] === "number" ? payload[k] as number : undefined;
  const exp = num("exp");
  if (exp !== undefined && exp < now - SKEW_S) {
    refuse(
      "request_expired",
      `the request object expired at ${new Date(exp * 1000).toISOString()}.`,
    );
  }
  const nbf = num("nbf");
  if (nbf !== undefined && nbf > now + SKEW_S) {
    refuse(
      "request_expired",
      `the request object is not valid before ${new Date(nbf * 1000).toISOString()}.`,
    );
  }
  const iat = num("iat");
  if (iat !== undefined && iat > now + SKEW_S) {
    refuse("request_expired", "the request object was issued in the future (iat).");
  }
}

/**
 * The `verifyJwt` callback: verifies the request object's signature with the signer the library
 * found (`did` or `x5c`), then its validity times. Returns the signer's public JWK.
 */
export function requestJwtVerifier(deps: RequestSignatureDeps) {
  return async (
    signer: RequestSigner,
    jwt: { header: Record<string, unknown>; payload: Record<string, unknown>; compact: string },
  ): Promise<{ verified: true; signerJwk: jose.JWK }> => {
    const alg = typeof jwt.header.alg === "string" ? jwt.header.alg : "";
    if (!REQUEST_ALGS.includes(alg)) {
      refuse("request_signature", `the request object's alg "${alg}" is not accepted.`);
    }
    let key: jose.CryptoKey | Uint8Array;
    if (signer.method === "did" && "didUrl" in signer) {
      key = await didKey(signer.didUrl, jwt.payload, alg, deps);
    } else if (signer.method === "x5c" && "x5c" in signer) {
      if (!deps.anchors) {
        refuse(
          "x509_trust_chain",
          "this service has no X.509 trust anchors configured (OID4VP_X509_TRUST_ANCHORS), so it accepts no x509_san_dns request.",
        );
      }
      key = await deps.anchors!.verifyChain(signer.x5c, new Date(deps.now()), alg);
    } else {
      return refuse(
        "request_signer",
        `a request object signed by a "${signer.method}" key is not accepted; the client's DID or an x5c chain must sign it.`,
      );
    }
    try {
      await jose.compactVerify(jwt.compact, key, { algorithms: [alg] });
    } catch (err) {
      refuse(
        "request_signature",
        `the request object's signature does not verify (${
          (err as Error).message
        }): it was changed or signed by another key.`,
      );
    }
    checkTimes(jwt.payload, deps.now());
    const signerJwk = key instanceof Uint8Array ? { kty: "oct" } : await jose.exportJWK(key);
    return { verified: true, signerJwk };
  };
}
