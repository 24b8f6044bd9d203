/**
 * Dev mode: the secrets kept under `.data/`, the dev identity provider's tokens and the banner
 * `deno task dev` prints. `token.ts` is the `deno task token` entry.
 *
 * @module
 */
export { devBanner, type DevBannerInput } from "./banner.ts";
export { devPublicJwk, type DevSecrets, loadDevSecrets, mintDevToken } from "./keys.ts";
