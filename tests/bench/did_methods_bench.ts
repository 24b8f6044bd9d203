/** Resolution cost of the pure DID methods (no network, no KV). Run: deno task bench */
import { ed25519 } from "@noble/curves/ed25519.js";
import { keyMethod } from "../../src/did/methods/key.ts";
import { jwkMethod } from "../../src/did/methods/jwk.ts";
import { createPeerDid2, createPeerDid4FromKeys, peerMethod } from "../../src/did/methods/peer.ts";
import { parseDid } from "../../src/did/syntax.ts";
import type { DidMethod } from "../../src/did/types.ts";

const ed = ed25519.getPublicKey(new Uint8Array(32).fill(7));
const peerInput = {
  authentication: [ed],
  keyAgreement: [ed25519.utils.toMontgomery(ed)],
  services: [{ type: "did-communication", serviceEndpoint: "https://agent.example/didcomm" }],
};

const cases: [string, DidMethod, string][] = [
  ["did:key Ed25519", keyMethod, "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"],
  ["did:key P-256", keyMethod, "did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv"],
  [
    "did:jwk P-256",
    jwkMethod,
    "did:jwk:eyJjcnYiOiJQLTI1NiIsImt0eSI6IkVDIiwieCI6ImFjYklRaXVNczNpOF91c3pFakoydHBUdFJNNEVVM3l6OTFQSDZDZEgyVjAiLCJ5IjoiX0tjeUxqOXZXTXB0bm1LdG00NkdxRHo4d2Y3NEk1TEtncmwyR3pIM25TRSJ9",
  ],
  ["did:peer:2", peerMethod, createPeerDid2(peerInput)],
  ["did:peer:4 long form", peerMethod, createPeerDid4FromKeys(peerInput).longDid],
];

for (const [name, method, did] of cases) {
  const parsed = parseDid(did);
  if (!parsed) throw new Error(`bench DID does not parse: ${name}`);
  Deno.bench(`resolve ${name}`, { group: "did-resolve" }, async () => {
    const res = await method.resolve(parsed, {});
    if (!res.didDocument) throw new Error(res.didResolutionMetadata.message);
  });
}
