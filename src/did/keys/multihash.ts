/**
 * The sha2-256 multihash of bytes, multibase base58btc encoded (`zQm…`): how did:peer numalgo 3
 * and 4 name a document. Apart from `multicodec.ts` so that the early lane, which loads that file,
 * loads no hash library.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, encodeMultibase, MULTIHASH_SHA2_256 } from "./multicodec.ts";

/** sha2-256 multihash of `data`, multibase base58btc encoded (`zQm...`). */
export function sha256MultihashBase58(data: Uint8Array): string {
  return encodeMultibase(concatBytes(Uint8Array.of(MULTIHASH_SHA2_256, 32), sha256(data)));
}
