/**
 * did:peer driver (https://identity.foundation/peer-did-method-spec/): numalgo 0 (inception key, like
 * did:key), 2 (keys and services in the DID) and 4 (hashed long form; short form once the long form
 * was seen). Numalgo 1 and 3 need out-of-band state and are reported as not supported.
 */
import type { KeyRepresentation } from "../keys/key_material.ts";
import {
  DERIVED_DID_TRAITS,
  type DidMethod,
  type DidResolutionResult,
  type ParsedDid,
  resolutionError,
  resolutionSuccess,
} from "../types.ts";
import { keyDocument } from "./key.ts";
import { peer2Document } from "./peer/numalgo2.ts";
import {
  contextualizePeer4,
  decodePeer4LongForm,
  isPeer4LongForm,
  isPeer4ShortForm,
} from "./peer/numalgo4.ts";
import { InMemoryPeerLongFormStore, type PeerLongFormStore } from "./peer/store.ts";

export {
  createPeerDid2,
  type CreatePeerDidInput,
  peer2Document,
  peer2ToPeer3,
  type PeerServiceInput,
} from "./peer/numalgo2.ts";
export {
  contextualizePeer4,
  createPeerDid4,
  createPeerDid4FromKeys,
  decodePeer4LongForm,
  isPeer4LongForm,
  isPeer4ShortForm,
} from "./peer/numalgo4.ts";
export { InMemoryPeerLongFormStore, type PeerLongFormStore } from "./peer/store.ts";

/** Options of `createPeerMethod`. */
export interface PeerMethodOptions {
  /** Long forms of did:peer:4 seen so far; default: a new in-memory store. */
  store?: PeerLongFormStore;
  /** Key representation for numalgo 0 and 2 (default `base58`). */
  representation?: KeyRepresentation;
  /** Service id style for numalgo 2 (default `spec`: `#service`, `#service-1`, ...). */
  serviceIds?: "spec" | "credo";
}

const invalid = (message: string) => resolutionError("invalidDid", `invalid did:peer: ${message}`);

/** Creates a did:peer driver. */
export function createPeerMethod(options: PeerMethodOptions = {}): DidMethod {
  const store = options.store ?? new InMemoryPeerLongFormStore();
  const representation = options.representation ?? "base58";

  async function resolvePeer4(did: string): Promise<DidResolutionResult> {
    if (isPeer4LongForm(did)) {
      const decoded = decodePeer4LongForm(did);
      if (!decoded.ok) return invalid(decoded.message);
      try {
        await store.put(decoded.value.shortDid, did);
      } catch {
        // Remembering is best effort: the long form itself still resolves.
      }
      return resolutionSuccess(
        contextualizePeer4(decoded.value.inputDocument, did, decoded.value.shortDid),
      );
    }
    if (!isPeer4ShortForm(did)) return invalid("not a did:peer:4 short or long form");
    let longDid: string | undefined;
    try {
      longDid = await store.get(did);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      return resolutionError("internalError", `the did:peer:4 long form store failed: ${why}`);
    }
    if (longDid === undefined) {
      return resolutionError(
        "notFound",
        "a did:peer:4 short form resolves only after its long form has been seen",
      );
    }
    const decoded = decodePeer4LongForm(longDid);
    if (!decoded.ok || decoded.value.shortDid !== did) {
      return resolutionError("internalError", "the stored did:peer:4 long form does not match");
    }
    return resolutionSuccess(contextualizePeer4(decoded.value.inputDocument, did, longDid));
  }

  return {
    name: "peer",
    // numalgo 0, 2 and 4 as resolved here: derived from the DID, never changes
    traits: DERIVED_DID_TRAITS,
    deterministic: true,
    isDeterministicFor: (parsed: ParsedDid) => !isPeer4ShortForm(parsed.did),
    resolve(parsed: ParsedDid): Promise<DidResolutionResult> {
      const did = parsed.did;
      const numalgo = parsed.id[0];
      switch (numalgo) {
        case "0": {
          const doc = keyDocument(did, parsed.id.slice(1), {
            representation,
            fragment: (mb) => mb.slice(1),
          });
          return Promise.resolve(doc.ok ? resolutionSuccess(doc.value) : invalid(doc.message));
        }
        case "2": {
          const doc = peer2Document(did, { representation, serviceIds: options.serviceIds });
          return Promise.resolve(doc.ok ? resolutionSuccess(doc.value) : invalid(doc.message));
        }
        case "4":
          return resolvePeer4(did);
        case "1":
        case "3":
          return Promise.resolve(resolutionError(
            "methodNotSupported",
            `did:peer numalgo ${numalgo} needs a stored document and is not supported here`,
          ));
        default:
          return Promise.resolve(invalid(`unknown numalgo ${JSON.stringify(numalgo)}`));
      }
    },
  };
}

/** The did:peer driver with an in-memory long form store and default options. */
export const peerMethod: DidMethod = createPeerMethod();
