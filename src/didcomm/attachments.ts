/**
 * Attachments of DIDComm messages (Aries RFC 0017) named by a `formats` list (RFC 0453, RFC 0454):
 * reading the attachment of a format, and writing a JSON value as one.
 *
 * @module
 */
import { isObject } from "../base/mod.ts";

/** Largest decoded attachment accepted (bytes). */
const MAX_ATTACHMENT = 256 * 1024;

/** Decodes an attachment's `data.json` or `data.base64` to a JSON value. */
export function decodeAttachment(attachment: unknown): { ok: true; value: unknown } | {
  ok: false;
  reason: string;
} {
  if (!isObject(attachment) || !isObject(attachment.data)) {
    return { ok: false, reason: "the attachment has no data" };
  }
  const data = attachment.data;
  if (data.json !== undefined) return { ok: true, value: data.json };
  if (typeof data.base64 !== "string") {
    return { ok: false, reason: "the attachment data is neither json nor base64" };
  }
  try {
    const b64 = data.base64.replace(/-/g, "+").replace(/_/g, "/").replace(/\s/g, "");
    const bin = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "="));
    if (bin.length > MAX_ATTACHMENT) {
      return { ok: false, reason: `the attachment is larger than ${MAX_ATTACHMENT} bytes` };
    }
    const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
    return { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) };
  } catch {
    return { ok: false, reason: "the attachment's base64 data is not base64 of UTF-8 JSON" };
  }
}

/**
 * Finds the attachment of `format` through the message's `formats` list and decodes it.
 * `attachKey` is e.g. `offers~attach`.
 */
export function findFormatAttachment(
  message: Record<string, unknown>,
  attachKey: string,
  format: string,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  const formats = message.formats;
  const attachments = message[attachKey];
  if (!Array.isArray(formats) || !Array.isArray(attachments)) {
    return { ok: false, reason: `the message has no "formats" or "${attachKey}" list` };
  }
  const spec = formats.find((f) => isObject(f) && f.format === format);
  if (!isObject(spec) || typeof spec.attach_id !== "string") {
    return { ok: false, reason: `no "${format}" entry in "formats"` };
  }
  const attachment = attachments.find((a) => isObject(a) && a["@id"] === spec.attach_id);
  if (!attachment) {
    return { ok: false, reason: `no attachment "${spec.attach_id}" in "${attachKey}"` };
  }
  return decodeAttachment(attachment);
}

/** Base64 (standard, padded) of a JSON value's UTF-8 text. */
export function jsonToBase64(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/**
 * `value` as a JSON attachment (RFC 0017, base64) and its `formats` entry naming `format` (the
 * writing side of `findFormatAttachment`).
 */
export function formatAttachment(format: string, value: unknown) {
  const attachId = crypto.randomUUID();
  return {
    format: { attach_id: attachId, format },
    attachment: {
      "@id": attachId,
      "mime-type": "application/json",
      data: { base64: jsonToBase64(value) },
    },
  };
}
