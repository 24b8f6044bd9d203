/**
 * The answer to a DIF Presentation Exchange request: a W3C verifiable presentation of the chosen
 * credentials carrying its `presentation_submission`, assembled by the PE library, checked against
 * the whole definition by the same library, then signed by the org's key (`authentication`, the
 * request's `challenge` and `domain`) with the service's JSON-LD stack.
 *
 * @module
 */
import {
  createDocumentLoader,
  type LdProofSuiteName,
  onPresentationContext,
  presentationSuite,
  type RemoteContexts,
  SIGNABLE_PROOF_TYPES,
  signPresentation,
} from "../credentials/mod.ts";
import { conflict, isObject, strings } from "../base/mod.ts";
import type { Candidate } from "./evaluate.ts";
import { newPex } from "./pex.ts";
import type { PeRequest } from "./request.ts";
import { withoutSchema } from "./schema_uri.ts";

type Json = Record<string, unknown>;

/** The org key that signs: its did:key is the presentation's holder. */
export interface PresentationSigner {
  /** `did:key:z6Mk…` */
  did: string;
  /** `did:key:z6Mk…#z6Mk…` */
  verificationMethod: string;
  publicKey: Uint8Array;
  /** 64-byte seed‖public key (or the 32-byte seed). */
  secretKey: Uint8Array;
}

/**
 * The proof type of the presentation: Ed25519Signature2018, or the first type this service can
 * sign among those the definition's `format.ldp_vp.proof_type` names (`DataIntegrityProof`:
 * `eddsa-rdfc-2022`). A definition that asks for a Data Integrity presentation with the PE v2
 * format `di_vp` gets `DataIntegrityProof` when its `cryptosuite` list, if any, has
 * `eddsa-rdfc-2022`.
 * 409 when it names none this service signs.
 */
export function presentationProofType(definition: Json): LdProofSuiteName {
  const format = isObject(definition.format) ? definition.format : {};
  const ldpVp = format.ldp_vp ?? format.ldp;
  const diVp = format.di_vp;
  let wanted: string[] | undefined;
  let cryptosuites: string[] | undefined;
  let where = "format.ldp_vp.proof_type";
  if (isObject(ldpVp) && Array.isArray(ldpVp.proof_type)) {
    wanted = strings(ldpVp.proof_type);
  } else if (isObject(diVp)) {
    wanted = strings(diVp.proof_type) ?? ["DataIntegrityProof"];
    cryptosuites = strings(diVp.cryptosuite);
    where = "format.di_vp";
  }
  const found = presentationSuite(wanted, cryptosuites);
  if (!found) {
    const suites = cryptosuites ? ` (cryptosuite ${cryptosuites.join(" or ")})` : "";
    throw conflict(
      `The request wants a presentation signed with ${wanted!.join(" or ")}${suites} ` +
        `(${where}); this service signs with ${SIGNABLE_PROOF_TYPES.join(", ")} ` +
        "(DataIntegrityProof: eddsa-rdfc-2022).",
    );
  }
  return found;
}

/**
 * The signed presentation of `chosen` (descriptor id → credential) for `request`. 409 when the
 * library finds that the presentation does not satisfy the definition. `contexts`: the contexts
 * that are not bundled (`JSONLD_CONTEXT_ALLOW`), which a chosen credential may use.
 */
export async function buildPresentation(
  request: PeRequest,
  chosen: ReadonlyMap<string, Candidate>,
  signer: PresentationSigner,
  contexts?: RemoteContexts,
): Promise<Json> {
  const suite = presentationProofType(request.presentation_definition);
  // Each chosen credential met its descriptor's v1 `schema` when it was chosen (evaluate.ts); the
  // library, which reads `schema` more narrowly, sees the descriptors without it.
  const pd = {
    ...request.presentation_definition,
    input_descriptors: request.presentation_definition.input_descriptors.map(withoutSchema),
  };
  // As Credo does: a definition of just the chosen descriptors (no requirements, no groups), so
  // the submission maps exactly those; the whole definition then judges the result.
  const restricted = {
    ...pd,
    input_descriptors: pd.input_descriptors
      .filter((d) => chosen.has(String(d.id)))
      .map(({ group: _group, ...d }) => d),
    submission_requirements: undefined,
  };
  const unique = [...new Map([...chosen.values()].map((c) => [c.id, c.credential])).values()];
  const pex = await newPex();
  // presentationFrom works on the instance's last evaluation of these credentials.
  pex.selectFrom(restricted as never, unique as never, {
    holderDIDs: [signer.did],
    limitDisclosureSignatureSuites: [],
  });
  const { presentations } = pex.presentationFrom(restricted as never, unique as never, {
    holderDID: signer.did,
  });
  const unsigned = presentations[0] as unknown as Json | undefined;
  if (!unsigned) throw conflict("No presentation could be made of the chosen credentials.");
  const checked = pex.evaluatePresentation(pd as never, unsigned as never, {
    limitDisclosureSignatureSuites: [],
  });
  if (checked.areRequiredCredentialsPresent === "error") {
    const why = (checked.errors ?? []).map((e) => e.message).filter(Boolean).slice(0, 3);
    throw conflict(
      `The chosen credentials do not satisfy the presentation definition: ${why.join("; ")}`,
    );
  }
  // The library writes a VC 1.1 presentation; one carrying a VC 2.0 credential must be 2.0.
  return await signPresentation(onPresentationContext(unsigned), {
    keyPair: {
      id: signer.verificationMethod,
      controller: signer.did,
      publicKey: signer.publicKey,
      secretKey: signer.secretKey,
    },
    suite,
    challenge: request.options.challenge,
    ...(request.options.domain !== undefined ? { domain: request.options.domain } : {}),
    // The credentials are signed into the presentation whole: their contexts, issuers' own
    // vocabularies included, must load as they did on receipt.
    documentLoader: createDocumentLoader({ remote: contexts }),
  });
}
