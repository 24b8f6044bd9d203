/**
 * Our per-connection `did:peer:2`: the connection key as `#key-1`, its X25519 twin, and one
 * DIDComm v1 service naming the org's agent endpoint. Used by DID Exchange and by DID Rotate.
 *
 * @module
 */
import { ed25519PublicToX25519 } from "../../crypto/mod.ts";
import { createPeerDid2 } from "../../did/mod.ts";

/** Our did:peer:2 for one connection key and endpoint (deterministic). */
export function createConnectionDid(publicKey: Uint8Array, endpoint: string): string {
  return createPeerDid2({
    authentication: [publicKey],
    keyAgreement: [ed25519PublicToX25519(publicKey)],
    services: [{
      serviceEndpoint: endpoint,
      type: "did-communication",
      priority: 0,
      recipientKeys: ["#key-1"],
      routingKeys: [],
    }],
  });
}
