// Credo's JSON-LD document loader plus what status lists and issuer vocabularies need here:
// the W3C Bitstring Status List context (from its npm package; Credo bundles only the 2020
// revocation list context and this machine has no internet), and contexts served on a loopback
// host (an issuer's own vocabulary, fetched from 127.0.0.1 only).
import { W3cCredentialsModuleConfig } from "@credo-ts/core";
import * as statusContext from "@digitalbazaar/vc-bitstring-status-list-context";

// Credo's own default loader (not exported by name): what the module config uses without options.
const defaultDocumentLoader = new W3cCredentialsModuleConfig().documentLoader;
const EXTRA = new Map([[statusContext.CONTEXT_URL, statusContext.CONTEXT]]);
const loopback = new Map();

/** A DocumentLoaderWithContext for W3cCredentialsModule's `documentLoader` option. */
export function documentLoaderWithStatus(agentContext) {
  const base = defaultDocumentLoader(agentContext);
  return async (url) => {
    const extra = EXTRA.get(url);
    if (extra) return { contextUrl: null, documentUrl: url, document: extra };
    const u = URL.canParse(url) ? new URL(url) : undefined;
    if (u && u.protocol === "http:" && u.hostname === "127.0.0.1") {
      if (!loopback.has(url)) {
        const res = await fetch(url, { headers: { accept: "application/ld+json" } });
        if (!res.ok) throw new Error(`context ${url}: ${res.status}`);
        loopback.set(url, await res.json());
      }
      return { contextUrl: null, documentUrl: url, document: loopback.get(url) };
    }
    return await base(url);
  };
}
