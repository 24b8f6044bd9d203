/**
 * libsodium (wasm) for the RFC 0019 envelope primitives (`crypto_box`, `crypto_box_seal`,
 * ChaCha20-Poly1305). Loaded on first use only: nothing else in the service needs it.
 *
 * @module
 */
import sodium from "libsodium-wrappers";

type Sodium = typeof sodium;
let ready: Promise<Sodium> | undefined;

/** Resolves to the initialised libsodium instance (initialises it once). */
export function getSodium(): Promise<Sodium> {
  ready ??= sodium.ready.then(() => sodium);
  return ready;
}
