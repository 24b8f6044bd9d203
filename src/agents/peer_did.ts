/**
 * Minimal local creation of the org agent's `did:peer:2` (peer DID method spec, numalgo 2).
 *
 * Temporary: `src/did/methods/peer.ts` (another module, not yet committed when this was written)
 * will own did:peer creation and resolution; swap `createAgentPeerDid` for its `createPeerDid2`
 * once it lands. The encoding here follows the spec so both produce the same string.
 *
 * Layout: `did:peer:2.V<ed25519 multikey>.E<x25519 multikey>.S<base64url(service)>`. Per the
 * spec's (clarified) resolution rules the keys resolve to `#key-1` (Ed25519, authentication) and
 * `#key-2` (X25519, keyAgreement), in DID string order; the DIDComm v1 service names `#key-1` as
 * its recipient key, as ACA-Py does for RFC 0793 did:peer:2 DIDs.
 *
 * @module
 */
import { ed25519PublicToX25519 } from "../didcomm/keys.ts";
import { encodeMultibaseKey } from "../did/multicodec.ts";
import { b64u } from "../crypto/secret_box.ts";

/** The DIDComm v1 accept profile this agent speaks (RFC 0019 envelopes). */
export const DIDCOMM_V1_ACCEPT = "didcomm/aip2;env=rfc19";

/** What the agent DID is made of. */
export interface AgentPeerDid {
  did: string;
  /** `z6Mk…` multibase of the Ed25519 key (`#key-1`). */
  ed25519Multikey: string;
  /** `z6LS…` multibase of the derived X25519 key (`#key-2`). */
  x25519Multikey: string;
  /** The service as encoded in the DID (abbreviated keys). */
  service: Record<string, unknown>;
}

/**
 * Creates the `did:peer:2` of an org agent from its Ed25519 public key and DIDComm endpoint.
 * Deterministic: the same key and endpoint give the same DID.
 */
export async function createAgentPeerDid(
  ed25519PublicKey: Uint8Array,
  endpoint: string,
): Promise<AgentPeerDid> {
  const x25519 = await ed25519PublicToX25519(ed25519PublicKey);
  const ed25519Multikey = encodeMultibaseKey("Ed25519", ed25519PublicKey);
  const x25519Multikey = encodeMultibaseKey("X25519", x25519);
  // Abbreviations of the spec: type→t, serviceEndpoint→s, routingKeys→r, accept→a.
  const service = {
    t: "did-communication",
    s: endpoint,
    recipientKeys: ["#key-1"],
    r: [],
    a: [DIDCOMM_V1_ACCEPT],
    priority: 0,
  };
  const encoded = b64u(new TextEncoder().encode(JSON.stringify(service)));
  return {
    did: `did:peer:2.V${ed25519Multikey}.E${x25519Multikey}.S${encoded}`,
    ed25519Multikey,
    x25519Multikey,
    service,
  };
}
