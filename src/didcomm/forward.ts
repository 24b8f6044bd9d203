/**
 * RFC 0094 routing: wrap a packed envelope in `forward` messages for each mediator.
 *
 * Order as in Credo (`DidCommEnvelopeService.packMessage`) and ACA-Py: `routingKeys[0]` is the
 * mediator nearest the recipient, so it wraps first (innermost) with `to` = the recipient key;
 * each later routing key wraps the previous layer with `to` = the previous routing key. The
 * outermost layer is therefore for the last routing key, which is where the sender delivers.
 * Every forward layer is Anoncrypt.
 *
 * @module
 */
import { EnvelopeError, type JweEnvelope, packMessage } from "./envelope.ts";
import { toVerkey } from "../crypto/mod.ts";

/** RFC 0094 forward message type (the `did:sov:…;spec/` form is also accepted by the parser). */
export const FORWARD_TYPE = "https://didcomm.org/routing/1.0/forward";
const LEGACY_FORWARD_TYPE = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/routing/1.0/forward";

/** A decrypted RFC 0094 forward message. */
export interface ForwardMessage {
  "@type": string;
  "@id": string;
  /** base58 verkey (or DID key reference) of the next hop. */
  to: string;
  /** The envelope to deliver to `to`. */
  msg: JweEnvelope;
}

/**
 * Wraps `packed` (already encrypted for `recipientKey`) in one Anoncrypt forward layer per
 * routing key. Keys may be base58 verkeys or Ed25519 `did:key`s; `to` is written as base58.
 * With no routing keys `packed` is returned unchanged (after `recipientKey` is validated).
 * Throws `EnvelopeError` (`invalid_input`) for an invalid key.
 */
export async function wrapForRouting(
  packed: JweEnvelope,
  recipientKey: string,
  routingKeys: string[],
): Promise<JweEnvelope> {
  let to: string;
  try {
    to = toVerkey(recipientKey);
  } catch {
    throw new EnvelopeError("invalid pack input", "invalid_input");
  }
  let envelope = packed;
  for (const routingKey of routingKeys) {
    const forward: ForwardMessage = {
      "@type": FORWARD_TYPE,
      "@id": crypto.randomUUID(),
      to,
      msg: envelope,
    };
    envelope = await packMessage(forward, { recipientKeys: [routingKey] });
    to = toVerkey(routingKey); // valid: packMessage accepted it
  }
  return envelope;
}

/**
 * Returns the forward message when `message` (a decrypted plaintext) is an RFC 0094 forward
 * with a string `to` and an object `msg`, else `undefined`.
 */
export function parseForward(message: Record<string, unknown>): ForwardMessage | undefined {
  const type = message["@type"];
  if (type !== FORWARD_TYPE && type !== LEGACY_FORWARD_TYPE) return undefined;
  const { to, msg } = message;
  if (typeof to !== "string" || typeof msg !== "object" || msg === null || Array.isArray(msg)) {
    return undefined;
  }
  return message as unknown as ForwardMessage;
}
