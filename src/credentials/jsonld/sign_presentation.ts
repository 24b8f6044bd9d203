/**
 * Signs a verifiable presentation (W3C VC Data Model 1.1) with an `authentication` Linked Data
 * proof over the verifier's `challenge` and `domain`, as DIF Presentation Exchange verifiers
 * (Credo's `DifPresentationExchangeProofFormatService`) check it.
 *
 * @module
 */
import * as vc from "@digitalbazaar/vc";
import { AppError, conflict } from "../../base/mod.ts";
import { createDocumentLoader, findLoaderError } from "./document_loader.ts";
import { createSigningSuite, type LdProofSuiteName, type LdSigningKeyPair } from "./suite.ts";
import type { DocumentLoader } from "./types.ts";

const CREDENTIALS_V1 = "https://www.w3.org/2018/credentials/v1";
const CREDENTIALS_V2 = "https://www.w3.org/ns/credentials/v2";

/**
 * The data model context of a presentation of `credentials`: VC 2.0 when any of them is a VC 2.0
 * credential, else VC 1.1. A 1.1 presentation cannot carry a 2.0 credential (its context would
 * redefine terms the 1.1 context protects); a 2.0 presentation carries both, its
 * `verifiableCredential` resetting the context (`"@context": null`) for each credential.
 */
export function presentationContext(credentials: readonly Record<string, unknown>[]): string {
  return credentials.some((c) =>
      ([] as unknown[]).concat(c["@context"] ?? [])[0] === CREDENTIALS_V2
    )
    ? CREDENTIALS_V2
    : CREDENTIALS_V1;
}

/**
 * `presentation` on the data model context {@link presentationContext} gives its credentials (in
 * place of the 1.1 context it may start with); a new object.
 */
export function onPresentationContext(
  presentation: Record<string, unknown>,
): Record<string, unknown> {
  const credentials = ([] as unknown[]).concat(presentation.verifiableCredential ?? [])
    .filter((c): c is Record<string, unknown> => typeof c === "object" && c !== null);
  const rest = ([] as unknown[]).concat(presentation["@context"] ?? [])
    .filter((c) => c !== CREDENTIALS_V1 && c !== CREDENTIALS_V2);
  return { ...presentation, "@context": [presentationContext(credentials), ...rest] };
}

/** Options of {@link signPresentation}. */
export interface SignPresentationOptions {
  /** The holder's key: `controller` is the presentation's `holder`. */
  keyPair: LdSigningKeyPair;
  suite: LdProofSuiteName;
  /** The verifier's challenge (required by the `authentication` proof purpose). */
  challenge: string;
  domain?: string;
  /** Proof `created` time (default: now). */
  date?: Date;
  /** Document loader (default: an offline loader over the bundled contexts). */
  documentLoader?: DocumentLoader;
}

/**
 * Adds an `authentication` proof to `presentation` (not mutated) with `@digitalbazaar/vc`
 * `signPresentation`. Throws when the key pair is inconsistent; a context that cannot be loaded
 * (a stored credential on a context the service no longer allows, or whose host is down) is the
 * caller's answer, not a failure of ours: 409 naming the context and `JSONLD_CONTEXT_ALLOW`, or
 * 502 when its host could not be reached.
 */
export async function signPresentation(
  presentation: object,
  options: SignPresentationOptions,
): Promise<Record<string, unknown> & { proof: Record<string, unknown> }> {
  const suite = await createSigningSuite(options.keyPair, options.suite, options.date);
  let signed: unknown;
  try {
    signed = await vc.signPresentation({
      presentation: structuredClone(presentation),
      suite,
      challenge: options.challenge,
      ...(options.domain !== undefined ? { domain: options.domain } : {}),
      documentLoader: options.documentLoader ?? createDocumentLoader(),
    });
  } catch (err) {
    const refused = findLoaderError(err);
    if (refused === undefined) throw err;
    const message = `The presentation cannot be signed: ${refused.message}`;
    throw refused.code === "context_unavailable"
      ? new AppError("bad_gateway", 502, message, { cause: err })
      : conflict(message);
  }
  return signed as Record<string, unknown> & { proof: Record<string, unknown> };
}
