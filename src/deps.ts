import type { Config } from "./config.ts";
import type { SecretBox } from "./crypto/secret_box.ts";
import type { TokenVerifier } from "./http/auth.ts";
import type { Dispatcher } from "./outbox/dispatcher.ts";
import type { SafeFetch } from "./outbound/mod.ts";

/** Long-lived dependencies, built once in main.ts (or a test) and passed to every feature by closure. */
export interface AppDeps {
  config: Config;
  kv: Deno.Kv;
  verifier: TokenVerifier;
  dispatcher: Dispatcher;
  safeFetch: SafeFetch;
  secrets: SecretBox;
  /** Clock in ms since epoch; injectable. */
  now: () => number;
}

/**
 * `load` run once per deps (a loaded key, a signer): later calls share its promise; a failure is
 * forgotten so the next call tries again.
 */
export function oncePerDeps<T>(load: (deps: AppDeps) => Promise<T>): (deps: AppDeps) => Promise<T> {
  const loaded = new WeakMap<AppDeps, Promise<T>>();
  return (deps) => {
    let p = loaded.get(deps);
    if (!p) {
      p = load(deps);
      p.catch(() => loaded.delete(deps));
      loaded.set(deps, p);
    }
    return p;
  };
}
