/** Test helpers: real Ed25519 did:key identities and a real did:key resolver. */
import { Resolver } from "did-resolver";
import { getResolver } from "key-did-resolver";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import type { LdSigningKeyPair } from "../../../src/credentials/jsonld/sign.ts";
import type { LdDidDocument, ResolveDid } from "../../../src/credentials/jsonld/types.ts";

/** A did:key identity with its signing key pair. */
export interface TestIdentity {
  did: string;
  keyPair: LdSigningKeyPair;
}

/** Creates a did:key identity from a seed (random when omitted). */
export function didKeyIdentity(seed: Uint8Array = ed25519.utils.randomSecretKey()): TestIdentity {
  const publicKey = ed25519.getPublicKey(seed);
  const fingerprint = `z${base58.encode(Uint8Array.from([0xed, 0x01, ...publicKey]))}`;
  const did = `did:key:${fingerprint}`;
  return {
    did,
    keyPair: { id: `${did}#${fingerprint}`, controller: did, publicKey, secretKey: seed },
  };
}

const didKeyResolver = new Resolver(getResolver());

/** Resolves did:key with the `key-did-resolver` npm package (no network). */
export const resolveDidKey: ResolveDid = async (did) => {
  const result = await didKeyResolver.resolve(did);
  return (result.didDocument ?? null) as LdDidDocument | null;
};

/** A resolver over a fixed set of DID documents (for hand-made documents). */
export function staticResolver(docs: LdDidDocument[]): ResolveDid {
  const byId = new Map(docs.map((d) => [d.id, d]));
  return (did) => Promise.resolve(byId.get(did) ?? null);
}

/** A v1 credential with an inline context, shaped like what Credo issues. */
export function sampleCredential(issuer: string): Record<string, unknown> {
  return {
    "@context": [
      "https://www.w3.org/2018/credentials/v1",
      {
        name: "https://schema.org/name",
        degree: "https://schema.org/educationalCredentialAwarded",
      },
    ],
    type: ["VerifiableCredential"],
    issuer,
    issuanceDate: "2024-01-01T00:00:00Z",
    credentialSubject: { id: "did:example:holder", name: "Alice", degree: "BSc" },
  };
}
