/**
 * DID Rotate 1.0 (Aries RFC 0794): its message types and the bounds of what a connection record
 * remembers of rotations (a record must stay within one KV value).
 *
 * @module
 */

const PROTOCOL = "https://didcomm.org/did-rotate/1.0";

/** Message types of DID Rotate 1.0. */
export const DidRotateTypes = {
  rotate: `${PROTOCOL}/rotate`,
  ack: `${PROTOCOL}/ack`,
  problemReport: `${PROTOCOL}/problem-report`,
  hangup: `${PROTOCOL}/hangup`,
} as const;

/** How many earlier DIDs a record remembers per side. */
export const DID_HISTORY = 5;
/** How many sender keys of the other side a record accepts at most (older ones drop out). */
export const MAX_THEIR_KEYS = 32;

/** `list` with `did` appended, keeping the last {@link DID_HISTORY}. */
export function remember(list: string[] | undefined, did: string): string[] {
  return [...(list ?? []), did].slice(-DID_HISTORY);
}
