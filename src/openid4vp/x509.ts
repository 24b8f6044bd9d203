/**
 * `x509_san_dns` requests: the `x5c` chain of a signed request object must end at one of the
 * operator's trust anchors (`OID4VP_X509_TRUST_ANCHORS`), every certificate valid now, every
 * issuer a CA, each certificate signed by the next. Certificates are read with `@peculiar/x509`
 * (the library Credo uses for the same job), loaded only when anchors are configured.
 *
 * @module
 */
import type * as X509 from "@peculiar/x509";
import * as jose from "jose";
import { refuse } from "./refusal.ts";
import { lazy } from "../base/mod.ts";
import { ConfigError } from "../config/mod.ts";

type X509Module = typeof X509;

/** `@peculiar/x509`, loaded on first use. */
const loadX509 = lazy(() => import("@peculiar/x509"));

const PEM_RE = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g;

/** The CERTIFICATE blocks of a PEM bundle, as DER (base64 of each). */
export function pemCertificates(pem: string): string[] {
  return [...pem.matchAll(PEM_RE)].map((m) => m[1]!.replace(/\s+/g, ""));
}

const der = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** The operator's trust anchors for `x509_san_dns` requests. */
export class TrustAnchors {
  readonly #x509: X509Module;
  readonly #anchors: X509.X509Certificate[];

  private constructor(x509: X509Module, anchors: X509.X509Certificate[]) {
    this.#x509 = x509;
    this.#anchors = anchors;
  }

  /** Parses a PEM bundle; throws naming the problem when it holds no usable certificate. */
  static async fromPem(pem: string): Promise<TrustAnchors> {
    const x509 = await loadX509();
    const blocks = pemCertificates(pem);
    if (blocks.length === 0) throw new Error("it holds no -----BEGIN CERTIFICATE----- block");
    const anchors = blocks.map((b, i) => {
      try {
        return new x509.X509Certificate(der(b));
      } catch (err) {
        throw new Error(`certificate ${i + 1} cannot be read (${(err as Error).message})`);
      }
    });
    return new TrustAnchors(x509, anchors);
  }

  /** How many anchors there are. */
  get size(): number {
    return this.#anchors.length;
  }

  /** The DNS names of a certificate's subjectAltName (base64 DER, as in `x5c`). */
  sanDnsNames(certificate: string): string[] {
    return this.#names(certificate, "dns");
  }

  /** The URI names of a certificate's subjectAltName. */
  sanUriNames(certificate: string): string[] {
    return this.#names(certificate, "url");
  }

  #names(certificate: string, type: "dns" | "url"): string[] {
    const cert = new this.#x509.X509Certificate(der(certificate));
    const san = cert.getExtension(this.#x509.SubjectAlternativeNameExtension);
    return (san?.names.items ?? []).filter((n) => n.type === type).map((n) => n.value);
  }

  /**
   * Checks the chain `x5c` (leaf first) at time `now` and returns the leaf's public key for `alg`.
   * Refuses with `x509_trust_chain` naming what is wrong.
   */
  async verifyChain(x5c: string[], now: Date, alg: string): Promise<jose.CryptoKey> {
    const x = this.#x509;
    let certs: X509.X509Certificate[];
    try {
      certs = x5c.map((c) => new x.X509Certificate(der(c)));
    } catch (err) {
      return refuse("x509_trust_chain", `an x5c certificate cannot be read (${err}).`);
    }
    if (certs.length === 0) return refuse("x509_trust_chain", "the x5c header is empty.");
    const valid = (c: X509.X509Certificate) => c.notBefore <= now && now <= c.notAfter;
    const isCa = (c: X509.X509Certificate) =>
      c.getExtension(x.BasicConstraintsExtension)?.ca === true;
    for (const [i, c] of certs.entries()) {
      if (!valid(c)) {
        refuse("x509_trust_chain", `x5c certificate ${i + 1} (${c.subject}) is not valid now.`);
      }
      if (i > 0 && !isCa(c)) {
        refuse("x509_trust_chain", `x5c certificate ${i + 1} (${c.subject}) is not a CA.`);
      }
      const next = certs[i + 1];
      if (next && !(await c.verify({ publicKey: next.publicKey, signatureOnly: true }))) {
        refuse(
          "x509_trust_chain",
          `x5c certificate ${i + 1} is not signed by certificate ${i + 2}.`,
        );
      }
    }
    const last = certs[certs.length - 1]!;
    let anchored = false;
    for (const a of this.#anchors) {
      if (!valid(a)) continue;
      if (a.toString("base64") === last.toString("base64")) anchored = true;
      else if (
        a.subject === last.issuer && isCa(a) &&
        await last.verify({ publicKey: a.publicKey, signatureOnly: true })
      ) anchored = true;
      if (anchored) break;
    }
    if (!anchored) {
      refuse(
        "x509_trust_chain",
        `the x5c chain (issuer "${last.issuer}") does not end at a configured trust anchor (OID4VP_X509_TRUST_ANCHORS).`,
      );
    }
    const spki = certs[0]!.publicKey.toString("pem");
    try {
      return await jose.importSPKI(spki, alg, { extractable: true });
    } catch (err) {
      return refuse(
        "request_signature",
        `the leaf certificate's key does not fit alg ${alg} (${(err as Error).message}).`,
      );
    }
  }
}

/**
 * The trust anchors of `OID4VP_X509_TRUST_ANCHORS` (a PEM bundle, or the path of a file holding
 * one), parsed; undefined when it is not set. A ConfigError names what is wrong.
 */
export async function trustAnchorsFrom(
  setting: { pem: string } | { path: string } | undefined,
): Promise<TrustAnchors | undefined> {
  if (!setting) return undefined;
  let pem: string;
  if ("pem" in setting) pem = setting.pem;
  else {
    try {
      pem = await Deno.readTextFile(setting.path);
    } catch (err) {
      throw new ConfigError(
        `OID4VP_X509_TRUST_ANCHORS names the file "${setting.path}", which cannot be read (${
          (err as Error).message
        }); give a PEM bundle of CA certificates or the path of one.`,
      );
    }
  }
  try {
    return await TrustAnchors.fromPem(pem);
  } catch (err) {
    throw new ConfigError(
      `OID4VP_X509_TRUST_ANCHORS is not a usable PEM bundle of CA certificates: ${
        (err as Error).message
      }.`,
    );
  }
}
