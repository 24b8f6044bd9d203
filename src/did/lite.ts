/**
 * The light entry of `did/`: the early lane, which `src/main.ts` serves with before the app has
 * loaded. It is `answerDid` with less around it: no token checks (so it answers only when
 * resolution is public), no resolver that waits, no dereferencing, and a resolver that knows one
 * thing, the Ed25519 did:key (the DID wallets resolve most), built by the same function as the
 * did:key method's. Everything else is declined and waits for the app. It loads no curve library,
 * no router and no KV (tests/structure: a light entry loads no `mod.ts`).
 *
 * @module
 */
import { type AnswerDid, createAnswerDid } from "./http/answer.ts";
import { ed25519DidKeyResult } from "./methods/key_ed25519.ts";
import type { Resolution } from "./types.ts";

const IMMUTABLE = { kind: "immutable" } as const;

/** The early lane: an answer at once, or undefined (declined). */
export function createEarlyLane(
  options: { isPublic: boolean },
): (req: Request) => Response | undefined {
  const answerDid: AnswerDid = createAnswerDid({
    isPublic: options.isPublic,
    now: Date.now,
    // Each resolution is made per request: nothing to prepare and clone.
    preparedBytes: 0,
    resolver: {
      peek(did): Resolution | undefined {
        const result = ed25519DidKeyResult(did);
        return result && { result, freshness: IMMUTABLE, source: "deterministic" };
      },
    },
  });
  return (req) => {
    const res = answerDid(req);
    // Without a resolver that waits or token checks, the pipeline never has to wait.
    return res instanceof Promise ? undefined : res;
  };
}
