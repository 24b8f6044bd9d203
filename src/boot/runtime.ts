/**
 * The Deno versions the service runs on. The oldest is the one Deno Deploy runs: 2.5.0, as its
 * documentation states (docs.deno.com/deploy/reference/runtime: "Currently Deno Deploy runs on
 * Deno 2.5.0"; the build step runs the same version). A check that refused the platform's runtime
 * would stop every deployment (CONTRACT "Operations").
 *
 * One thing differs below 2.7: `node:http`'s `lookup` option, through which the safe outbound
 * client pins each connection to the addresses it vetted (on 2.5 and 2.6 it throws "Not
 * implemented: ClientRequest.options.lookup"). There the client vets the addresses before the
 * request instead, without pinning (`outbound/transport.ts` `canPinOutbound`), and the start says
 * so (`start_app.ts`).
 *
 * @module
 */
import { denoAtLeast } from "../base/mod.ts";

/** The oldest Deno this service runs on (Deno Deploy's runtime). */
export const MIN_DENO = "2.5.0";

/** A sentence naming the found and the needed version when `version` is too old, else undefined. */
export function runtimeProblem(version: string, needed = MIN_DENO): string | undefined {
  const ok = denoAtLeast(version, needed);
  if (ok === undefined) {
    return `Deno ${version} is not a version this service can check; it needs Deno ${needed} or newer.`;
  }
  if (ok) return undefined;
  return `Deno ${version} is too old: this service needs Deno ${needed} or newer ` +
    `(the oldest it is tested on, the version Deno Deploy runs). Run it with deno ${needed}+.`;
}
