/**
 * The field's libraries the OpenID4VP holder is built on, loaded on first use (they are not
 * needed to start the service or to answer anything else): `@openid4vc/openid4vp` (request
 * parsing and validation, response building), `dcql` (query evaluation), `@sd-jwt/core`
 * (presentations with chosen disclosures and key binding).
 *
 * `@openid4vc/*` checks that URLs are https through a process-wide setting; this service's own
 * outbound policy (`OUTBOUND_REQUIRE_HTTPS`) decides that for every URL it reaches, so the
 * library's check is turned off here and ours applies (`authorization_request.ts` checks the
 * `response_uri`, the safe client every fetch). `@openid4vc/utils` also replaces zod's global error
 * map on import; the service's own map is put back, so its 400 messages keep their wording.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { z } from "zod";
import { lazy } from "../base/mod.ts";

/** The loaded libraries. */
export interface Oid4vpLibs {
  vp: typeof import("@openid4vc/openid4vp");
  dcql: typeof import("dcql");
  sdJwt: typeof import("@sd-jwt/core");
  /** The hash callback of `@openid4vc/*` (sha-256 only). */
  hash: (data: Uint8Array, alg: string) => Uint8Array;
}

/** The libraries, loaded on first use (the one lazy loader: callers share one load). */
export const openid4vpLibs: () => Promise<Oid4vpLibs> = lazy(async () => {
  const customError = z.config().customError;
  const [vp, oauth2, dcql, sdJwt] = await Promise.all([
    import("@openid4vc/openid4vp"),
    import("@openid4vc/oauth2"),
    import("dcql"),
    import("@sd-jwt/core"),
  ]);
  z.config({ customError });
  oauth2.setGlobalConfig({ allowInsecureUrls: true });
  const hash = (data: Uint8Array, alg: string) => {
    if (alg !== "sha-256") throw new Error(`hash ${alg} is not supported`);
    return sha256(data);
  };
  return { vp, dcql, sdJwt, hash };
});
