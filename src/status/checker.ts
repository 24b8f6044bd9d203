/**
 * One status check of a credential, either format: the JSON-LD status list entries or the Token
 * Status List reference, with the shared list cache. Never throws: what cannot be established is
 * `unknown` with a message, and a list that does not verify is never `valid`.
 *
 * @module
 */
import type { DidResolver } from "../did/mod.ts";
import { log } from "../base/mod.ts";
import type { SafeFetch } from "../outbound/mod.ts";
import { ldStatus, type VerifyLd } from "./bitstring.ts";
import { StatusListCache } from "./list_cache.ts";
import { tokenListStatus } from "./token_status_list.ts";
import type { CredentialStatus, StatusTarget } from "./types.ts";

/** What a checker is built from. */
export interface StatusCheckerDeps {
  kv: Deno.Kv;
  safeFetch: SafeFetch;
  resolver: Pick<DidResolver, "resolve">;
  /** Verifies a status list credential's proof (the service's JSON-LD `verifyCredential`). */
  verifyLd: VerifyLd;
  now: () => number;
  /** Freshness of a list that gives no `ttl`: the DID cache TTL (ms). */
  defaultTtlMs: number;
}

/** Checks a credential's status against its issuer's list. */
export class StatusChecker {
  readonly #d: StatusCheckerDeps & { cache: StatusListCache };

  constructor(deps: StatusCheckerDeps) {
    this.#d = { ...deps, cache: new StatusListCache(deps.kv) };
  }

  /** The status of `target` now. */
  async check(target: StatusTarget): Promise<CredentialStatus> {
    let answer: { state: CredentialStatus["state"]; message?: string };
    try {
      answer = target.format === "ldp_vc"
        ? await ldStatus(target, this.#d)
        : await tokenListStatus(target, this.#d);
    } catch (err) {
      log("warn", "credential status check failed", { error: err, format: target.format });
      answer = {
        state: "unknown",
        message: `The status could not be checked: ${err instanceof Error ? err.message : err}.`,
      };
    }
    return {
      state: answer.state,
      checkedAt: new Date(this.#d.now()).toISOString(),
      ...(answer.message ? { message: answer.message.slice(0, 1000) } : {}),
    };
  }
}
