/**
 * A guard against compression bombs: a status list is a compressed bitstring from the network,
 * and the libraries decode it whole. Its size is measured first, streaming, and refused past a cap.
 *
 * @module
 */

/** Largest decompressed list accepted: 16 MiB (134 million 1-bit statuses). */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;

/** Decoded base64url (no padding needed). */
export function fromBase64url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "="));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/**
 * The decompressed size of `bytes` (`gzip` for Bitstring Status List / Status List 2021, `deflate`
 * (zlib) for the Token Status List); throws once it passes `max`, or when the data is not valid.
 */
export async function inflatedSize(
  bytes: Uint8Array,
  format: "gzip" | "deflate",
  max = MAX_LIST_BYTES,
): Promise<number> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(
    new DecompressionStream(format),
  );
  const reader = stream.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return size;
      size += value.length;
      if (size > max) {
        throw new Error(`it decompresses to more than ${max} bytes`);
      }
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    if (err instanceof Error && err.message.startsWith("it decompresses")) throw err;
    throw new Error(`it is not valid ${format} data`);
  }
}
