/**
 * The OpenID4VCI client libraries, `@openid4vc/openid4vci` and `@openid4vc/oauth2` 0.4.6 (the ones
 * Credo 0.6.3 is built on), loaded once on first use: they are on no start path of the service.
 *
 * Loading them has two process-wide effects, both settled here once:
 *
 * - `@openid4vc/utils` replaces zod's global error map, which would change the wording of this
 *   service's own 400 messages after the first offer; the map the service had is put back.
 * - The libraries refuse `http://` URLs through a global switch. The service's one outbound client
 *   already decides which URLs are allowed (`OUTBOUND_REQUIRE_HTTPS`, the address policy), so the
 *   switch is opened and every call meets that one policy instead of two.
 *
 * @module
 */
import type * as Oauth2 from "@openid4vc/oauth2";
import type * as Openid4vci from "@openid4vc/openid4vci";
import type * as Utils from "@openid4vc/utils";
import { z } from "zod";
import { lazy } from "../base/mod.ts";

/** The two libraries, and their shared utilities (the base error class). */
export interface Oid4vcLibraries {
  vci: typeof Openid4vci;
  oauth2: typeof Oauth2;
  utils: typeof Utils;
}

/** The libraries, imported on the first call (the one lazy loader: callers share one load). */
export const loadOid4vcLibraries: () => Promise<Oid4vcLibraries> = lazy(async () => {
  const customError = z.config().customError;
  const [vci, oauth2, utils] = await Promise.all([
    import("@openid4vc/openid4vci"),
    import("@openid4vc/oauth2"),
    import("@openid4vc/utils"),
  ]);
  z.config({ customError });
  utils.setGlobalConfig({ allowInsecureUrls: true });
  return { vci, oauth2, utils };
});
