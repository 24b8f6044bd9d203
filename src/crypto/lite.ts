/**
 * The light entry of `crypto/`: what code that loads before the app (the DID early lane) may take
 * from this folder without loading the rest of it (`mod.ts` brings secrets, rotation, noble). Only
 * the Ed25519 point check and X25519 map, which import nothing.
 *
 * @module
 */
export { decodeEd25519, type Ed25519Decoded } from "./edwards.ts";
