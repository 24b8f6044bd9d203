/**
 * The did:key (and did:peer:0) document of an Ed25519 key with base58 verification methods: the
 * common case, kept free of curve libraries so that the early lane (`did/lite.ts`) can load it. One
 * field exponentiation checks the key and gives its X25519 key agreement key.
 */
import { decodeEd25519 } from "../../crypto/lite.ts";
import { decodeMultibaseKey, encodeBase58, encodeMultibaseKey } from "../keys/multicodec.ts";
import {
  type DidDocument,
  type DidResolutionResult,
  fail,
  ok,
  resolutionSuccess,
  type Result,
  type VerificationMethod,
  withServedFromCache,
} from "../types.ts";
import { BASE58_TYPES, contextFor } from "../keys/verification_method.ts";

/** A did:key of an Ed25519 key: base58btc only, no path, query or fragment. */
const DID_KEY = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * The document for `did` whose Ed25519 key is `publicKey` (multibase form `multibaseKey`);
 * `fragment` makes a verification method's fragment from a multibase key.
 */
export function ed25519KeyDocument(
  did: string,
  multibaseKey: string,
  publicKey: Uint8Array,
  fragment: (multibaseKey: string) => string = (mb) => mb,
): Result<DidDocument> {
  const d = decodeEd25519(publicKey);
  if (d.kind === "invalid") return fail("the bytes are not a valid Ed25519 public key");
  if (d.kind === "small") return fail("the Ed25519 key cannot be converted to X25519");
  const x = d.montgomeryU;
  const main: VerificationMethod = {
    id: `${did}#${fragment(multibaseKey)}`,
    type: BASE58_TYPES.Ed25519!,
    controller: did,
    publicKeyBase58: encodeBase58(publicKey),
  };
  const agreement: VerificationMethod = {
    id: `${did}#${fragment(encodeMultibaseKey("X25519", x))}`,
    type: BASE58_TYPES.X25519!,
    controller: did,
    publicKeyBase58: encodeBase58(x),
  };
  const methods = [main, agreement];
  return ok({
    "@context": contextFor(methods),
    id: did,
    verificationMethod: methods,
    authentication: [main.id],
    assertionMethod: [main.id],
    capabilityInvocation: [main.id],
    capabilityDelegation: [main.id],
    keyAgreement: [agreement.id],
  });
}

/**
 * The resolution result of a valid Ed25519 did:key (no path, query or fragment), exactly as the
 * did:key method gives it; undefined for any other DID (the early lane leaves those to the app).
 */
export function ed25519DidKeyResult(did: string): DidResolutionResult | undefined {
  if (!did.startsWith("did:key:z6Mk") || !DID_KEY.test(did)) return undefined;
  const multibase = did.slice(8);
  const key = decodeMultibaseKey(multibase);
  if (!key.ok || key.value.keyType !== "Ed25519") return undefined;
  const doc = ed25519KeyDocument(did, multibase, key.value.publicKey);
  return doc.ok ? withServedFromCache(resolutionSuccess(doc.value), false) : undefined;
}
