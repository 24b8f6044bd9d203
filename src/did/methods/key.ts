/**
 * did:key (https://w3c-ccg.github.io/did-method-key/): the DID document is derived from the public key
 * in the identifier. Ed25519 keys get a derived X25519 key agreement key; X25519 keys only key agreement;
 * secp256k1 and NIST curves all five relationships; BLS12-381 G2 everything but key agreement.
 */
import { decodeEd25519 } from "../../crypto/mod.ts";
import { ed25519KeyDocument } from "./key_ed25519.ts";
import {
  contextFor,
  type KeyRepresentation,
  validatePublicKey,
  verificationMethodFor,
} from "../keys/key_material.ts";
import { decodeMultibaseKey, encodeMultibaseKey, type MulticodecKey } from "../keys/multicodec.ts";
import {
  DERIVED_DID_TRAITS,
  type DidDocument,
  type DidMethod,
  fail,
  ok,
  type ParsedDid,
  resolutionError,
  resolutionSuccess,
  type Result,
  type VerificationMethod,
} from "../types.ts";

/** Options of the did:key document builder. */
export interface KeyDocumentOptions {
  /** Verification method representation; default `base58` (interface document). */
  representation?: KeyRepresentation;
  /**
   * Fragment of a verification method id for a multibase key. Default: the multibase key itself
   * (did:key). did:peer:0 drops the leading `z`.
   */
  fragment?: (multibaseKey: string) => string;
}

/**
 * Builds the DID document for `did` whose key is the multibase multicodec value `multibaseKey`
 * (the did:key method-specific id). Shared by did:key and did:peer:0.
 */
export function keyDocument(
  did: string,
  multibaseKey: string,
  options: KeyDocumentOptions = {},
): Result<DidDocument> {
  const decoded = decodeMultibaseKey(multibaseKey);
  if (!decoded.ok) return decoded;
  const key = decoded.value;
  const representation = options.representation ?? "base58";
  const fragment = options.fragment ?? ((mb: string) => mb);
  if (key.keyType === "Ed25519" && representation === "base58") {
    return ed25519KeyDocument(did, multibaseKey, key.publicKey, fragment);
  }
  // An Ed25519 key is checked once, by the decoding that also gives its X25519 key (below).
  let x25519: Uint8Array | undefined;
  if (key.keyType === "Ed25519") {
    const d = decodeEd25519(key.publicKey);
    if (d.kind === "invalid") return fail("the bytes are not a valid Ed25519 public key");
    if (d.kind === "small") return fail("the Ed25519 key cannot be converted to X25519");
    x25519 = d.montgomeryU;
  } else {
    const valid = validatePublicKey(key.keyType, key.publicKey);
    if (!valid.ok) return valid;
  }

  const vmFor = (k: MulticodecKey, mb: string): VerificationMethod =>
    verificationMethodFor(k, `${did}#${fragment(mb)}`, did, representation);

  const main = vmFor(key, multibaseKey);
  const methods: VerificationMethod[] = [main];
  const signing = [main.id];
  let agreement: string[] = [];

  switch (key.keyType) {
    case "Ed25519": {
      const x = x25519!;
      const xKey: MulticodecKey = { keyType: "X25519", publicKey: x };
      const xVm = vmFor(xKey, encodeMultibaseKey("X25519", x));
      methods.push(xVm);
      agreement = [xVm.id];
      break;
    }
    case "X25519":
      return ok({
        "@context": contextFor(methods),
        id: did,
        verificationMethod: methods,
        keyAgreement: [main.id],
      });
    case "Bls12381G2":
      break;
    default: // secp256k1, P-256, P-384, P-521: the key also agrees keys (ECDH)
      agreement = [main.id];
  }

  const doc: DidDocument = {
    "@context": contextFor(methods),
    id: did,
    verificationMethod: methods,
    authentication: [...signing],
    assertionMethod: [...signing],
    capabilityInvocation: [...signing],
    capabilityDelegation: [...signing],
  };
  if (agreement.length > 0) doc.keyAgreement = agreement;
  return ok(doc);
}

/** Resolves a did:key DID string (no path/query/fragment) to its document. */
export function didKeyDocument(did: string, options: KeyDocumentOptions = {}): Result<DidDocument> {
  const prefix = "did:key:";
  if (!did.startsWith(prefix)) return fail("not a did:key DID");
  const id = did.slice(prefix.length);
  if (!id.startsWith("z") || id.includes(":")) {
    return fail("a did:key identifier is one base58btc multibase value starting with z");
  }
  return keyDocument(did, id, options);
}

/** Options of `createKeyMethod`. */
export interface KeyMethodOptions {
  /** Verification method representation; default `base58`. */
  representation?: KeyRepresentation;
}

/** Creates a did:key driver with the chosen representation. */
export function createKeyMethod(options: KeyMethodOptions = {}): DidMethod {
  return {
    name: "key",
    // derived from the key in the DID: never changes, cannot be deactivated
    traits: DERIVED_DID_TRAITS,
    deterministic: true,
    resolve(parsed: ParsedDid) {
      const doc = didKeyDocument(parsed.did, { representation: options.representation });
      return Promise.resolve(
        doc.ok
          ? resolutionSuccess(doc.value)
          : resolutionError("invalidDid", `invalid did:key: ${doc.message}`),
      );
    },
  };
}

/** The did:key driver with the default (base58) representation. */
export const keyMethod: DidMethod = createKeyMethod();
