#!/usr/bin/env node
// Baseline timing with Credo's OWN OpenID4VP holder against the running verifier peer.
// Usage: node vp_holder_timing.mjs <issuerControlUrl> <verifierControlUrl> [N=20] [warmup=3]
// The holder first receives an SD-JWT VC from the issuer peer (pre-authorized code, jwk binding).
// Then for each of N fresh DID-signed by-reference requests (direct_post, two claims of the
// credential) it times request URI → verifier's answer: resolveOpenId4VpAuthorizationRequest
// (fetch, signature, DCQL) → selectCredentialsForDcqlRequest → acceptOpenId4VpAuthorizationRequest
// (presentation, key binding, POST, the verifier's 200). Prints ONE JSON line on stdout.
import { Kms } from "@credo-ts/core";
import { controlPost, createOid4vcAgent, loopbackOnlyFetch } from "./lib/agent.mjs";

const [issuerControl, verifierControl, nArg = "20", warmArg = "3"] = process.argv.slice(2);
if (!issuerControl || !verifierControl) {
  console.error("usage: node vp_holder_timing.mjs <issuerControlUrl> <verifierControlUrl> [N]");
  process.exit(2);
}
const n = Number(nArg);
const warmup = Number(warmArg);
const DCQL = {
  credentials: [{
    id: "pid",
    format: "dc+sd-jwt",
    meta: { vct_values: ["https://example.org/vct/identity"] },
    claims: [{ path: ["given_name"] }, { path: ["address", "locality"] }],
  }],
};

const agent = await createOid4vcAgent({ fetch: loopbackOnlyFetch });
const holder = agent.openid4vc.holder;

// The credential, issued by the Credo issuer peer to this holder.
const offer = await controlPost(issuerControl, "/offers", { issuer: "ed25519-did-key" });
const resolvedOffer = await holder.resolveCredentialOffer(offer.offerUri);
const token = await holder.requestToken({ resolvedCredentialOffer: resolvedOffer });
const issued = await holder.requestCredentials({
  resolvedCredentialOffer: resolvedOffer,
  credentialConfigurationIds: [offer.credentialConfigurationId],
  credentialBindingResolver: async () => {
    const key = await agent.kms.createKeyForSignatureAlgorithm({ algorithm: "EdDSA" });
    return { method: "jwk", keys: [Kms.PublicJwk.fromPublicJwk(key.publicJwk)] };
  },
  ...token,
});
await Promise.all(issued.credentials.map((c) => agent.sdJwtVc.store({ record: c.record })));

const timingsMs = [];
let failures = 0;
for (let i = 0; i < warmup + n; i++) {
  const req = await controlPost(verifierControl, "/requests", { dcql: DCQL, signer: "did" });
  try {
    const t0 = performance.now();
    const resolved = await holder.resolveOpenId4VpAuthorizationRequest(req.authorizationRequest);
    const credentials = holder.selectCredentialsForDcqlRequest(resolved.dcql.queryResult);
    const result = await holder.acceptOpenId4VpAuthorizationRequest({
      authorizationRequestPayload: resolved.authorizationRequestPayload,
      dcql: { credentials },
    });
    const t1 = performance.now();
    if (!result.ok || result.serverResponse?.status !== 200) {
      throw new Error(`verifier answered ${JSON.stringify(result.serverResponse)}`);
    }
    if (i >= warmup) timingsMs.push(Math.round((t1 - t0) * 10) / 10);
  } catch (error) {
    failures++;
    console.error(`request ${i} failed:`, error);
  }
}

const sorted = [...timingsMs].sort((a, b) => a - b);
const mid = sorted.length >> 1;
const median = sorted.length === 0
  ? null
  : sorted.length % 2
  ? sorted[mid]
  : Math.round((sorted[mid - 1] + sorted[mid]) * 5) / 10;
process.stdout.write(
  `${
    JSON.stringify({
      n,
      failures,
      medianMs: median,
      minMs: sorted[0] ?? null,
      maxMs: sorted.at(-1) ?? null,
      timingsMs,
    })
  }\n`,
);
await agent.shutdown().catch(() => {});
process.exit(failures ? 1 : 0);
