/**
 * JSON-LD context documents bundled with the service, keyed by context URL.
 *
 * Contexts are never fetched from the network unless an operator allows their
 * URL prefix (`JSONLD_CONTEXT_ALLOW`, see `context_store.ts`), so every context
 * the field's credentials commonly reference is here. The W3C credentials,
 * security, Ed25519 suite and status list (Bitstring Status List v1.0, Status
 * List 2021) contexts come from the digitalbazaar npm packages that publish them; the DID v1 and X25519 contexts are verbatim JSON copies
 * (`did-context@3.1.1`, `x25519-key-agreement-2020-context@1.0.0`, and the
 * w3id.org x25519-2019 context that Credo also bundles), and so is the DIF Presentation Exchange
 * submission context (`https://identity.foundation/presentation-exchange/submission/v1`, which a
 * presentation carrying its `presentation_submission` names; Credo bundles it too).
 *
 * The Data Integrity contexts (`https://w3id.org/security/data-integrity/v1` and `v2`, from
 * `@digitalbazaar/data-integrity-context`) and the Multikey context
 * (`https://w3id.org/security/multikey/v1`, from `@digitalbazaar/multikey-context`) are bundled too,
 * but read on first use ({@link LAZY_CONTEXTS}): only a `DataIntegrityProof` (on a VC 1.1
 * credential, or a presentation we sign that way) or a Multikey verification method names them.
 * The VC 2.0 context defines `DataIntegrityProof` itself.
 */
import * as credentialsContext from "@digitalbazaar/credentials-context";
import securityContext from "@digitalbazaar/security-context";
import * as bitstringStatusListContext from "@digitalbazaar/vc-bitstring-status-list-context";
import statusList2021Context from "@digitalbazaar/vc-status-list-context";
import ed25519Signature2018Context from "ed25519-signature-2018-context";
import ed25519Signature2020Context from "ed25519-signature-2020-context";
import { lazy } from "../../../base/mod.ts";
import didV1 from "./did_v1.json" with { type: "json" };
import x25519V2019 from "./x25519_2019_v1.json" with { type: "json" };
import x25519V2020 from "./x25519_2020_v1.json" with { type: "json" };
import presentationSubmissionV1 from "./presentation_submission_v1.json" with { type: "json" };

/** W3C Verifiable Credentials Data Model 1.1 context URL. */
export const CREDENTIALS_V1_URL = "https://www.w3.org/2018/credentials/v1";
/** W3C Verifiable Credentials Data Model 2.0 context URL. */
export const CREDENTIALS_V2_URL = "https://www.w3.org/ns/credentials/v2";
/** Ed25519Signature2018 suite context URL. */
export const ED25519_2018_URL = "https://w3id.org/security/suites/ed25519-2018/v1";
/** Ed25519Signature2020 suite context URL. */
export const ED25519_2020_URL = "https://w3id.org/security/suites/ed25519-2020/v1";
/** Bitstring Status List v1.0 context URL (`BitstringStatusListEntry`, `…Credential`). */
export const STATUS_LIST_V1_URL = "https://www.w3.org/ns/credentials/status/v1";
/** Status List 2021 context URL (`StatusList2021Entry`, `StatusList2021Credential`). */
export const STATUS_LIST_2021_URL = "https://w3id.org/vc/status-list/2021/v1";
/** DIF Presentation Exchange submission context URL. */
export const PRESENTATION_SUBMISSION_URL =
  "https://identity.foundation/presentation-exchange/submission/v1";
/** DID Core v1 context URL. */
export const DID_V1_URL = "https://www.w3.org/ns/did/v1";
/** Data Integrity v1 context URL (`DataIntegrityProof` for documents without the VC 2.0 context). */
export const DATA_INTEGRITY_V1_URL = "https://w3id.org/security/data-integrity/v1";
/** Data Integrity v2 context URL: what `DataIntegrityProof` appends to a VC 1.1 document. */
export const DATA_INTEGRITY_V2_URL = "https://w3id.org/security/data-integrity/v2";
/** Multikey v1 context URL (`Multikey` verification methods). */
export const MULTIKEY_V1_URL = "https://w3id.org/security/multikey/v1";

type ContextMap = { contexts: Map<string, unknown> };

function fromPackage(pkg: ContextMap, url: string): object {
  const doc = pkg.contexts.get(url);
  if (typeof doc !== "object" || doc === null) {
    throw new Error(`bundled context package lacks ${url}`);
  }
  return doc;
}

const entries: Array<[string, object]> = [
  [CREDENTIALS_V1_URL, fromPackage(credentialsContext, CREDENTIALS_V1_URL)],
  [CREDENTIALS_V2_URL, fromPackage(credentialsContext, CREDENTIALS_V2_URL)],
  [
    "https://www.w3.org/ns/credentials/undefined-terms/v2",
    fromPackage(credentialsContext, "https://www.w3.org/ns/credentials/undefined-terms/v2"),
  ],
  ["https://w3id.org/security/v1", fromPackage(securityContext, "https://w3id.org/security/v1")],
  ["https://w3id.org/security/v2", fromPackage(securityContext, "https://w3id.org/security/v2")],
  [ED25519_2018_URL, fromPackage(ed25519Signature2018Context, ED25519_2018_URL)],
  [ED25519_2020_URL, fromPackage(ed25519Signature2020Context, ED25519_2020_URL)],
  [STATUS_LIST_V1_URL, fromPackage(bitstringStatusListContext, STATUS_LIST_V1_URL)],
  [STATUS_LIST_2021_URL, fromPackage(statusList2021Context, STATUS_LIST_2021_URL)],
  [DID_V1_URL, didV1],
  // Aliases of DID v1 that Credo's loader also answers.
  ["https://w3id.org/did/v1", didV1],
  ["https://w3.org/ns/did/v1", didV1],
  ["https://w3id.org/security/suites/x25519-2019/v1", x25519V2019],
  ["https://w3id.org/security/suites/x25519-2020/v1", x25519V2020],
  [PRESENTATION_SUBMISSION_URL, presentationSubmissionV1],
];

/** Every bundled context document by URL (read-only: never mutate a document). */
export const BUNDLED_CONTEXTS: ReadonlyMap<string, object> = new Map(entries);

const dataIntegrityContexts = lazy<ContextMap>(() =>
  import("@digitalbazaar/data-integrity-context")
);
const multikeyContexts = lazy<ContextMap>(() => import("@digitalbazaar/multikey-context"));

/**
 * Bundled contexts read on first use, by URL: their packages load (through `base/lazy.ts`) when a
 * document first names one; concurrent first uses share the import, a failed import is tried again
 * next time.
 */
export const LAZY_CONTEXTS: ReadonlyMap<string, () => Promise<object>> = new Map(
  ([
    [DATA_INTEGRITY_V1_URL, dataIntegrityContexts],
    [DATA_INTEGRITY_V2_URL, dataIntegrityContexts],
    [MULTIKEY_V1_URL, multikeyContexts],
  ] as const).map(([url, load]) => [url, async () => fromPackage(await load(), url)]),
);
