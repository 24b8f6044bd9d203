/**
 * The did:key (and did:peer:0) document of an Ed25519 key with base58 verification methods: the
 * common case, kept free of curve libraries so that the early lane (`did/lite.ts`) can load it. One
 * field exponentiation checks the key and gives its X25519 key agreement key.
 */
import { decodeEd25519 } from "../../crypto/lite.ts";
import { encodeBase58, encodeMultibaseKey } from "../multicodec.ts";
import { type DidDocument, fail, ok, type Result, type VerificationMethod } from "../types.ts";
import { BASE58_TYPES, contextFor } from "../verification_method.ts";

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
