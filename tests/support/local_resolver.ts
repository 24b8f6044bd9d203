/**
 * An uncached resolver of did:key and did:peer for tests that resolve a DIDComm peer's DID outside
 * a service (the test peer, unit tests of DIDComm helpers). The service itself resolves with the
 * resolver its composition built.
 */
import { keyMethod } from "../../src/did/methods/key.ts";
import { createPeerMethod } from "../../src/did/methods/peer.ts";
import { createRegistry } from "../../src/did/resolver.ts";

/** Resolves did:key and did:peer (0, 2, 4 long form) with the service's own drivers, no cache. */
export const localResolver = createRegistry({ methods: [keyMethod, createPeerMethod()] });
