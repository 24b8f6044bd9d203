/**
 * Test support for Data Integrity proofs: issuers with real keys (Ed25519 through @noble/curves,
 * P-256 and P-384 through WebCrypto, as `@digitalbazaar/ecdsa-multikey` signs), their did:key, the
 * verification method in each form a DID document writes (Multikey, JsonWebKey), credentials
 * signed with Digital Bazaar's `DataIntegrityProof` and cryptosuites, and the W3C vectors kept
 * under `vectors/`.
 */
import * as vc from "@digitalbazaar/vc";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { Ed25519Signature2020 } from "@digitalbazaar/ed25519-signature-2020";
import { cryptosuite as eddsa } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import { cryptosuite as ecdsa } from "@digitalbazaar/ecdsa-rdfc-2019-cryptosuite";
import { ed25519 } from "@noble/curves/ed25519.js";
import { p256, p384 } from "@noble/curves/nist.js";
import { base58, base64urlnopad } from "@scure/base";
import { createDocumentLoader } from "../../../src/credentials/jsonld/document_loader.ts";
import type { StoredContext } from "../../../src/credentials/jsonld/context_store.ts";
import type { DocumentLoader, ResolveDid } from "../../../src/credentials/jsonld/types.ts";
import { keys } from "../../../src/kv/mod.ts";

type Json = Record<string, unknown>;

/** A signer as `DataIntegrityProof` takes it. */
export interface DiSigner {
  id: string;
  algorithm: string;
  sign(input: { data: Uint8Array }): Promise<Uint8Array>;
}

/** An issuer: its did:key, its one verification method, a signer, and its public key forms. */
export interface DiIssuer {
  did: string;
  /** `did:key:…#…` */
  vmId: string;
  cryptosuite: "eddsa-rdfc-2022" | "ecdsa-rdfc-2019";
  curve: "Ed25519" | "P-256" | "P-384";
  /** The multicodec multibase public key (`z6Mk…`, `zDn…`, `z82…`). */
  publicKeyMultibase: string;
  publicKeyJwk: Json;
  signer: DiSigner;
}

const HEADERS = { "Ed25519": [0xed, 0x01], "P-256": [0x80, 0x24], "P-384": [0x81, 0x24] };

function multibase(curve: keyof typeof HEADERS, key: Uint8Array): string {
  return `z${base58.encode(new Uint8Array([...HEADERS[curve], ...key]))}`;
}

/** A new Ed25519 did:key issuer signing `eddsa-rdfc-2022`. */
export function eddsaIssuer(seed: Uint8Array = ed25519.utils.randomSecretKey()): DiIssuer {
  const publicKey = ed25519.getPublicKey(seed);
  const mb = multibase("Ed25519", publicKey);
  const did = `did:key:${mb}`;
  const vmId = `${did}#${mb}`;
  return {
    did,
    vmId,
    cryptosuite: "eddsa-rdfc-2022",
    curve: "Ed25519",
    publicKeyMultibase: mb,
    publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: base64urlnopad.encode(publicKey) },
    signer: {
      id: vmId,
      algorithm: "Ed25519",
      sign: ({ data }) => Promise.resolve(ed25519.sign(data, seed)),
    },
  };
}

/** A new P-256 or P-384 did:key issuer signing `ecdsa-rdfc-2019`. */
export async function ecdsaIssuer(curve: "P-256" | "P-384"): Promise<DiIssuer> {
  const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: curve }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
  const compressed = (curve === "P-256" ? p256 : p384).Point.fromBytes(raw).toBytes(true);
  const mb = multibase(curve, compressed);
  const did = `did:key:${mb}`;
  const vmId = `${did}#${mb}`;
  const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", keys.publicKey);
  const hash = curve === "P-256" ? "SHA-256" : "SHA-384";
  return {
    did,
    vmId,
    cryptosuite: "ecdsa-rdfc-2019",
    curve,
    publicKeyMultibase: mb,
    publicKeyJwk: { kty, crv, x, y },
    signer: {
      id: vmId,
      algorithm: curve,
      sign: async ({ data }) =>
        new Uint8Array(
          await crypto.subtle.sign({ name: "ECDSA", hash }, keys.privateKey, data as BufferSource),
        ),
    },
  };
}

/**
 * The issuer moved to `did` (a did:web a test hosts): its verification method `#key-1` written as
 * `form` (`Multikey` with `publicKeyMultibase`, or `JsonWebKey` with `publicKeyJwk`), listed under
 * `assertionMethod`; returns the issuer with that method and the DID document.
 */
export function issuerAt(
  issuer: DiIssuer,
  did: string,
  form: "Multikey" | "JsonWebKey",
): { issuer: DiIssuer; document: Json } {
  const vmId = `${did}#key-1`;
  const vm = form === "Multikey"
    ? { id: vmId, type: "Multikey", controller: did, publicKeyMultibase: issuer.publicKeyMultibase }
    : { id: vmId, type: "JsonWebKey", controller: did, publicKeyJwk: issuer.publicKeyJwk };
  return {
    issuer: { ...issuer, did, vmId, signer: { ...issuer.signer, id: vmId } },
    document: {
      "@context": [
        "https://www.w3.org/ns/did/v1",
        form === "Multikey"
          ? "https://w3id.org/security/multikey/v1"
          : "https://w3id.org/security/jwk/v1",
      ],
      id: did,
      verificationMethod: [vm],
      assertionMethod: [vmId],
      authentication: [vmId],
    },
  };
}

/**
 * `credential` signed by `issuer` with Digital Bazaar's `DataIntegrityProof` and the issuer's
 * cryptosuite (`@digitalbazaar/vc` `issue`, proof purpose `assertionMethod`); the default loader
 * has the bundled contexts and the vectors' example contexts.
 */
export async function signDataIntegrity(
  credential: Json,
  issuer: DiIssuer,
  opts: { documentLoader?: DocumentLoader; date?: Date } = {},
): Promise<Json> {
  const suite = new DataIntegrityProof({
    signer: issuer.signer,
    cryptosuite: issuer.cryptosuite === "eddsa-rdfc-2022" ? eddsa : ecdsa,
    ...(opts.date ? { date: opts.date } : {}),
  });
  return await vc.issue({
    credential: structuredClone(credential),
    suite,
    documentLoader: opts.documentLoader ?? createDocumentLoader({ contexts: VECTOR_CONTEXTS }),
  }) as Json;
}

const VECTORS = new URL("./vectors/", import.meta.url);

/** The W3C vectors by name: the three suites' alumni credentials and employment credentials. */
export const VECTOR_FILES = {
  "eddsa-rdfc-2022": "eddsa-rdfc-2022/signedDataInt.json",
  "ecdsa-rdfc-2019 P-256": "ecdsa-rdfc-2019-p256/signedECDSAP256.json",
  "ecdsa-rdfc-2019 P-384": "ecdsa-rdfc-2019-p384/signedECDSAP384.json",
} as const;
/** The employment vectors (a DID issuer that did not sign them). */
export const EMPLOY_VECTOR_FILES = {
  "eddsa-rdfc-2022": "eddsa-rdfc-2022/employ/signedDataInt.json",
  "ecdsa-rdfc-2019 P-256": "ecdsa-rdfc-2019-p256/employ/signedECDSAP256.json",
  "ecdsa-rdfc-2019 P-384": "ecdsa-rdfc-2019-p384/employ/signedECDSAP384.json",
} as const;

/** A vector file's text, as published. */
export function vectorText(file: string): string {
  return Deno.readTextFileSync(new URL(file, VECTORS));
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/**
 * `text` with one byte changed: the first character of `part` (a piece of a string in the
 * document) turned into the next base58 character (the next character for anything else); the
 * result is still JSON, and a proof value stays base58.
 */
export function changeOneByte(text: string, part: string): string {
  const at = text.indexOf(part);
  if (at < 0) throw new Error(`"${part}" is not in the vector`);
  const ch = text[at]!;
  const i = BASE58.indexOf(ch);
  const next = i < 0 ? String.fromCharCode(ch.charCodeAt(0) + 1) : BASE58[(i + 1) % BASE58.length]!;
  return text.slice(0, at) + next + text.slice(at + 1);
}

/** The two example contexts the vectors name (not bundled with the service), by URL. */
export const VECTOR_CONTEXTS: ReadonlyMap<string, Json> = new Map([
  [
    "https://www.w3.org/ns/credentials/examples/v2",
    JSON.parse(vectorText("contexts/credentials-examples-v2.jsonld")),
  ],
  [
    "https://w3id.org/citizenship/v4rc1",
    JSON.parse(vectorText("contexts/citizenship-v4rc1.jsonld")),
  ],
]);

/** `JSONLD_CONTEXT_ALLOW` for the vectors' two example contexts. */
export const VECTOR_CONTEXT_ALLOW =
  "https://www.w3.org/ns/credentials/examples/,https://w3id.org/citizenship/";

/**
 * Keeps the vectors' example contexts in the service's KV as its context store would have kept
 * them after fetching them once under {@link VECTOR_CONTEXT_ALLOW} (their hosts are not reachable
 * from the tests).
 */
export async function keepVectorContexts(kv: Deno.Kv): Promise<void> {
  for (const [url, doc] of VECTOR_CONTEXTS) {
    const kept: StoredContext = {
      url,
      json: JSON.stringify(doc),
      fetchedAt: new Date().toISOString(),
    };
    await kv.set(keys.jsonldContext(url), kept);
  }
}

/**
 * How Digital Bazaar's own verifier judges presentation `vp`: `@digitalbazaar/vc` `verify` with
 * its `DataIntegrityProof` (eddsa-rdfc-2022, ecdsa-rdfc-2019) and Ed25519 2018/2020 suites,
 * `authentication` over `challenge` and `domain`, every embedded credential verified too. The
 * holder's did:key (`holder`) is dereferenced here as the did:key method writes it today, a
 * `Multikey`, independently of the service's loader; other DIDs through `resolveDid`.
 */
export async function digitalBazaarVerifies(
  vp: Json,
  o: {
    holder: string;
    challenge: string;
    domain?: string;
    resolveDid: ResolveDid;
    contexts?: ReadonlyMap<string, object>;
  },
): Promise<{ verified: boolean; error?: unknown }> {
  const fingerprint = o.holder.slice("did:key:".length);
  const vmId = `${o.holder}#${fingerprint}`;
  const ours = createDocumentLoader({ resolveDid: o.resolveDid, contexts: o.contexts });
  const documentLoader: DocumentLoader = (url) => {
    const doc = (document: Json) =>
      Promise.resolve({ contextUrl: null, documentUrl: url, document });
    if (url === vmId) {
      return doc({
        "@context": "https://w3id.org/security/multikey/v1",
        id: vmId,
        type: "Multikey",
        controller: o.holder,
        publicKeyMultibase: fingerprint,
      });
    }
    if (url === o.holder) {
      return doc({
        "@context": "https://www.w3.org/ns/did/v1",
        id: o.holder,
        authentication: [vmId],
        assertionMethod: [vmId],
      });
    }
    return ours(url);
  };
  return await vc.verify({
    presentation: vp,
    challenge: o.challenge,
    ...(o.domain === undefined ? {} : { domain: o.domain }),
    suite: [
      new DataIntegrityProof({ cryptosuite: eddsa }),
      new DataIntegrityProof({ cryptosuite: ecdsa }),
      new Ed25519Signature2018(),
      new Ed25519Signature2020(),
    ],
    documentLoader,
  }) as { verified: boolean; error?: unknown };
}
