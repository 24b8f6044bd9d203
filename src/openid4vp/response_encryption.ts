/**
 * `direct_post.jwt`: which key of the verifier and which content encryption the answer uses. The
 * verifier's `client_metadata` names them (`jwks`, `encrypted_response_enc_values_supported`, or
 * the older `authorization_encrypted_response_enc`); a request whose key or `enc` this wallet
 * cannot use is refused (`response_encryption`).
 *
 * @module
 */
import type * as jose from "jose";
import { refuse } from "./refusal.ts";

/** Content encryption this wallet can do for `direct_post.jwt`, in preference order. */
export const ENC_VALUES = ["A128GCM", "A256GCM", "A128CBC-HS256", "A256CBC-HS512"];

/**
 * The verifier's response encryption key and `enc` from `client_metadata`: an ECDH-ES key (EC
 * P-256/384/521 or OKP X25519) in `jwks`, and an `enc` both sides support. Refuses otherwise.
 */
export function encryptionKeyOf(
  metadata: Record<string, unknown> | undefined,
): { jwk: jose.JWK; enc: string } {
  const keys = (metadata?.jwks as { keys?: unknown } | undefined)?.keys;
  const usable = (Array.isArray(keys) ? keys : []).filter((k): k is jose.JWK =>
    !!k && typeof k === "object" && (k.use === undefined || k.use === "enc") &&
    (k.alg === undefined || k.alg === "ECDH-ES") &&
    ((k.kty === "EC" && ["P-256", "P-384", "P-521"].includes(k.crv)) ||
      (k.kty === "OKP" && k.crv === "X25519"))
  );
  if (usable.length === 0) {
    refuse(
      "response_encryption",
      "direct_post.jwt needs an ECDH-ES encryption key (EC or X25519) in client_metadata.jwks; the request has none.",
    );
  }
  const offered = metadata?.encrypted_response_enc_values_supported ??
    (typeof metadata?.authorization_encrypted_response_enc === "string"
      ? [metadata.authorization_encrypted_response_enc]
      : ["A128GCM"]);
  const enc = ENC_VALUES.find((e) => Array.isArray(offered) && offered.includes(e));
  if (!enc) {
    refuse(
      "response_encryption",
      `none of the verifier's content encryption values (${
        JSON.stringify(offered)
      }) is one this wallet supports (${ENC_VALUES.join(", ")}).`,
    );
  }
  return { jwk: usable[0]!, enc: enc! };
}
