/**
 * did:peer numalgo 4 (peer DID spec, "Method 4: Short Form and Long Form"):
 * long form `did:peer:4{hash}:{encoded document}`, short form `did:peer:4{hash}`, where the encoded
 * document is multibase(base58btc, multicodec json + JSON) and the hash is the sha2-256 multihash of
 * the encoded document's text.
 */
import {
  concatBytes,
  decodeMultibase,
  decodeVarint,
  encodeBase58,
  encodeMultibase,
  encodeVarint,
  MULTICODEC_JSON,
} from "../../keys/multicodec.ts";
import { sha256MultihashBase58 } from "../../keys/multihash.ts";
import {
  type DidDocument,
  fail,
  ok,
  type Result,
  VERIFICATION_RELATIONSHIPS,
} from "../../types.ts";
import { checkPeerKeys, type CreatePeerDidInput, servicesWithRecipientKeys } from "./numalgo2.ts";

const B58 = "[1-9A-HJ-NP-Za-km-z]";
const LONG_RE = new RegExp(`^did:peer:4(z${B58}{46}):(z${B58}{6,})$`);
const SHORT_RE = new RegExp(`^did:peer:4(z${B58}{46})$`);

/** True for `did:peer:4{hash}` without the encoded document. */
export const isPeer4ShortForm = (did: string): boolean => SHORT_RE.test(did);
/** True for `did:peer:4{hash}:{encoded document}`. */
export const isPeer4LongForm = (did: string): boolean => LONG_RE.test(did);

/** A verified long form: its short form and the input document it carries. */
export interface DecodedPeer4 {
  shortDid: string;
  longDid: string;
  inputDocument: Record<string, unknown>;
}

const hashOf = (encodedDocument: string) =>
  sha256MultihashBase58(new TextEncoder().encode(encodedDocument));

/** Decodes a long form DID, checking the hash over the encoded document. */
export function decodePeer4LongForm(longDid: string): Result<DecodedPeer4> {
  const m = LONG_RE.exec(longDid);
  if (!m) return fail("not a did:peer:4 long form DID");
  const [, hash, encoded] = m as unknown as [string, string, string];
  if (hashOf(encoded) !== hash) return fail("the did:peer:4 hash does not match its document");
  const bytes = decodeMultibase(encoded);
  if (!bytes.ok) return bytes;
  const codec = decodeVarint(bytes.value);
  if (!codec.ok || codec.value.value !== MULTICODEC_JSON) {
    return fail("the did:peer:4 document is not multicodec JSON");
  }
  let doc: unknown;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(
      bytes.value.subarray(codec.value.length),
    );
    doc = JSON.parse(text);
  } catch {
    return fail("the did:peer:4 document is not UTF-8 JSON");
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    return fail("the did:peer:4 document is not a JSON object");
  }
  const input = doc as Record<string, unknown>;
  if (input.verificationMethod !== undefined && !Array.isArray(input.verificationMethod)) {
    return fail("verificationMethod of the did:peer:4 document is not a list");
  }
  for (const rel of VERIFICATION_RELATIONSHIPS) {
    if (input[rel] !== undefined && !Array.isArray(input[rel])) {
      return fail(`${rel} of the did:peer:4 document is not a list`);
    }
  }
  return ok({ shortDid: `did:peer:4${hash}`, longDid, inputDocument: input });
}

/**
 * "Contextualizes" an input document for `did`: sets `id`, appends `alias` to `alsoKnownAs` and sets
 * `controller` of every verification method that has none. The input is not modified.
 */
export function contextualizePeer4(
  inputDocument: Record<string, unknown>,
  did: string,
  alias: string,
): DidDocument {
  const doc = structuredClone(inputDocument) as Record<string, unknown>;
  delete doc.id;
  const aka = Array.isArray(doc.alsoKnownAs) ? doc.alsoKnownAs.map(String) : [];
  if (!aka.includes(alias)) aka.push(alias);
  const setController = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const item of list) {
      if (
        item && typeof item === "object" &&
        (item as Record<string, unknown>).controller === undefined
      ) {
        (item as Record<string, unknown>).controller = did;
      }
    }
  };
  setController(doc.verificationMethod);
  for (const rel of VERIFICATION_RELATIONSHIPS) setController(doc[rel]);
  const { "@context": context, ...rest } = doc;
  const out: Record<string, unknown> = context === undefined ? {} : { "@context": context };
  return { ...out, id: did, ...rest, alsoKnownAs: aka } as DidDocument;
}

/** Encodes an input document (no `id`, relative references) into long and short form DIDs. */
export function createPeerDid4(inputDocument: Record<string, unknown>): {
  shortDid: string;
  longDid: string;
} {
  if ("id" in inputDocument) throw new TypeError("a did:peer:4 input document has no id");
  const bytes = concatBytes(
    encodeVarint(MULTICODEC_JSON),
    new TextEncoder().encode(JSON.stringify(inputDocument)),
  );
  const encoded = encodeMultibase(bytes);
  const shortDid = `did:peer:4${hashOf(encoded)}`;
  return { shortDid, longDid: `${shortDid}:${encoded}` };
}

/**
 * Builds the input document for keys and services (Ed25519VerificationKey2018 `#key-1`..., then
 * X25519KeyAgreementKey2019, services `#service-0`...) and encodes it with `createPeerDid4`.
 */
export function createPeerDid4FromKeys(input: CreatePeerDidInput): {
  shortDid: string;
  longDid: string;
} {
  checkPeerKeys(input);
  const auth = input.authentication.map((k, i) => ({
    id: `#key-${i + 1}`,
    type: "Ed25519VerificationKey2018",
    publicKeyBase58: encodeBase58(k),
  }));
  const agree = input.keyAgreement.map((k, i) => ({
    id: `#key-${auth.length + i + 1}`,
    type: "X25519KeyAgreementKey2019",
    publicKeyBase58: encodeBase58(k),
  }));
  const doc: Record<string, unknown> = {
    "@context": [
      "https://www.w3.org/ns/did/v1",
      "https://w3id.org/security/suites/ed25519-2018/v1",
      "https://w3id.org/security/suites/x25519-2019/v1",
    ],
    verificationMethod: [...auth, ...agree],
  };
  if (auth.length > 0) doc.authentication = auth.map((m) => m.id);
  if (agree.length > 0) doc.keyAgreement = agree.map((m) => m.id);
  const services = servicesWithRecipientKeys(input).map(({ id, ...rest }, i) => ({
    id: id ?? `#service-${i}`,
    ...rest,
  }));
  if (services.length > 0) doc.service = services;
  return createPeerDid4(doc);
}
