/**
 * The org agent's `did:peer:2`: its Ed25519 key (`V`, authentication, `#key-1`), the X25519 key
 * derived from it (`E`, keyAgreement, `#key-2`), and one DIDComm v1 service (`did-communication`,
 * recipient key `#key-1`, accept `didcomm/aip2;env=rfc19`) whose endpoint is the agent endpoint.
 * Built with the did:peer driver's `createPeerDid2`.
 *
 * @module
 */
import { ed25519PublicToX25519 } from "../crypto/mod.ts";
import { createPeerDid2 } from "../did/mod.ts";

/** The DIDComm v1 accept profile this agent speaks (RFC 0019 envelopes). */
export const DIDCOMM_V1_ACCEPT = "didcomm/aip2;env=rfc19";

/**
 * Creates the `did:peer:2` of an org agent from its Ed25519 public key and DIDComm endpoint.
 * Deterministic: the same key and endpoint give the same DID.
 */
export function createAgentPeerDid(
  ed25519PublicKey: Uint8Array,
  endpoint: string,
): { did: string } {
  const x25519 = ed25519PublicToX25519(ed25519PublicKey);
  const did = createPeerDid2({
    authentication: [ed25519PublicKey],
    keyAgreement: [x25519],
    services: [{
      type: "did-communication",
      serviceEndpoint: endpoint,
      recipientKeys: ["#key-1"],
      routingKeys: [],
      accept: [DIDCOMM_V1_ACCEPT],
      priority: 0,
    }],
  });
  return { did };
}
