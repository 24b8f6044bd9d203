/**
 * The authorization response (OpenID4VP 1.0 §8): the `vp_token` in the DCQL shape
 * (`{"<credential query id>": [<presentation>]}`) and the request's `state`, as the form body of
 * `direct_post`, or for `direct_post.jwt` encrypted to the verifier's key from `client_metadata`
 * (`response=<JWE>`, ECDH-ES, `apv` the request's nonce). `@openid4vc/openid4vp` builds the
 * response and its JARM envelope; jose encrypts.
 *
 * @module
 */
import * as jose from "jose";
import { ENC_VALUES, encryptionKeyOf } from "./response_encryption.ts";
import type { Oid4vpLibs } from "./libs.ts";
import type { StoredPresentationRequest } from "./record.ts";

/** What a `vp_token` holds: per credential query, its presentations. */
export type VpToken = Record<string, (string | Record<string, unknown>)[]>;

/** The JWE of the library's encryptor (`alg`, `enc`, `apu`, `apv` base64url, the JWK). */
async function encryptJwe(
  encryptor: { publicJwk: jose.JWK; alg: string; enc: string; apu?: string; apv?: string },
  data: string,
): Promise<{ jwe: string; encryptionJwk: jose.JWK }> {
  const key = await jose.importJWK(
    { ...encryptor.publicJwk, alg: undefined, use: undefined } as jose.JWK,
    encryptor.alg,
  );
  const jwe = await new jose.CompactEncrypt(new TextEncoder().encode(data))
    .setProtectedHeader({
      alg: encryptor.alg,
      enc: encryptor.enc,
      ...(encryptor.publicJwk.kid ? { kid: encryptor.publicJwk.kid } : {}),
    })
    .setKeyManagementParameters({
      ...(encryptor.apu ? { apu: jose.base64url.decode(encryptor.apu) } : {}),
      ...(encryptor.apv ? { apv: jose.base64url.decode(encryptor.apv) } : {}),
    })
    .encrypt(key);
  return { jwe, encryptionJwk: encryptor.publicJwk };
}

/** The request payload the library needs to build the response. */
function requestPayload(stored: StoredPresentationRequest) {
  const { record, params } = stored;
  return {
    response_type: "vp_token" as const,
    client_id: record.verifier.clientId,
    response_mode: record.responseMode,
    response_uri: record.responseUri,
    nonce: params.nonce,
    ...(params.state !== undefined ? { state: params.state } : {}),
    ...(params.clientMetadata ? { client_metadata: params.clientMetadata } : {}),
  };
}

/** The form body that answers `stored` with `vpToken`. */
export async function responseForm(
  libs: Oid4vpLibs,
  stored: StoredPresentationRequest,
  vpToken: VpToken,
): Promise<Record<string, string>> {
  const payload = requestPayload(stored);
  if (stored.record.responseMode === "direct_post") {
    const { authorizationResponsePayload: r } = await libs.vp.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: payload as never,
      authorizationResponsePayload: { vp_token: vpToken as never },
      callbacks: { encryptJwe: encryptJwe as never, signJwt: notSigning },
    });
    return {
      vp_token: JSON.stringify(r.vp_token),
      ...(typeof r.state === "string" ? { state: r.state } : {}),
    };
  }
  const { jwk, enc } = encryptionKeyOf(stored.params.clientMetadata);
  const result = await libs.vp.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: payload as never,
    authorizationResponsePayload: { vp_token: vpToken as never },
    jarm: {
      encryption: { nonce: jose.base64url.encode(crypto.getRandomValues(new Uint8Array(16))), jwk },
      serverMetadata: {
        authorization_signing_alg_values_supported: [],
        authorization_encryption_alg_values_supported: ["ECDH-ES"],
        authorization_encryption_enc_values_supported: [
          enc,
          ...ENC_VALUES.filter((e) => e !== enc),
        ],
      },
    } as never,
    callbacks: { encryptJwe: encryptJwe as never, signJwt: notSigning },
  });
  return { response: result.jarm!.responseJwt };
}

/** The form body of a refusal (`error=access_denied`) and the request's `state`. */
export function declineForm(stored: StoredPresentationRequest): Record<string, string> {
  return {
    error: "access_denied",
    error_description: "The holder declined to present credentials.",
    ...(stored.params.state !== undefined ? { state: stored.params.state } : {}),
  };
}

function notSigning(): never {
  throw new Error("this wallet does not sign authorization responses");
}
