/**
 * Shared cryptography: secrets at rest (`SecretBox`, hashes), SECRETS_KEY rotation, and the one
 * Ed25519/X25519 key code of the service.
 *
 * @module
 */
export {
  b64u,
  fromB64u,
  hashSecret,
  SecretBox,
  timingSafeEqual,
  verifySecret,
} from "./secret_box.ts";
export { decodeEd25519, type Ed25519Decoded, ed25519ToMontgomery, isEd25519Point } from "./lite.ts";
export { type Resealable, resealAll, type ResealReport, rotateSecrets } from "./rotation.ts";
export {
  bytesToVerkey,
  didKeyToVerkey,
  type Ed25519KeyPair,
  ed25519PublicToX25519,
  ed25519SecretToX25519,
  generateEd25519KeyPair,
  KeyFormatError,
  toEd25519SecretKey,
  toVerkey,
  verifyEd25519,
  verkeyToBytes,
  verkeyToDidKey,
  verkeyToX25519,
} from "./ed25519.ts";
