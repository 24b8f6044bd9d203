#!/usr/bin/env node
// Baseline timing with Credo's OWN OpenID4VCI holder against the running issuer peer.
// Usage: node holder_timing.mjs <controlUrl> [N=10] [issuer=ed25519-did-key] [binding=jwk]
//   issuer:  ed25519-did-key | p256-did-jwk | p256-did-key | all (round robin)
//   binding: jwk | did:key | did:jwk  (holder key binding put into the proof / cnf)
// For each of N fresh offers (by reference) it times offer URI → credential verified and
// stored: resolveCredentialOffer → requestToken (pre-authorized) → requestCredentials
// (proof with a fresh holder key) → sdJwtVc.store. Prints ONE JSON line on stdout:
//   {"n":..,"issuer":..,"binding":..,"medianMs":..,"timingsMs":[..],"steps":[..],"sample":..}
import { DidJwk, DidKey, Kms } from "@credo-ts/core";
import { controlPost, createOid4vcAgent, loopbackOnlyFetch } from "./lib/agent.mjs";

const [controlUrl, nArg = "10", issuerArg = "ed25519-did-key", binding = "jwk"] = process.argv
  .slice(2);
if (!controlUrl) {
  console.error(
    "usage: node holder_timing.mjs <controlUrl> [N] [issuer|all] [jwk|did:key|did:jwk]",
  );
  process.exit(2);
}
const n = Number(nArg);
const kinds = issuerArg === "all"
  ? ["ed25519-did-key", "p256-did-jwk", "p256-did-key"]
  : [issuerArg];

const agent = await createOid4vcAgent({ fetch: loopbackOnlyFetch });
const holder = agent.openid4vc.holder;

/** Creates a fresh holder key with the first algorithm the issuer accepts for proofs. */
async function credentialBindingResolver({ proofTypes }) {
  const algorithm = proofTypes.jwt?.supportedSignatureAlgorithms[0] ?? "EdDSA";
  const key = await agent.kms.createKeyForSignatureAlgorithm({ algorithm });
  const publicJwk = Kms.PublicJwk.fromPublicJwk(key.publicJwk);
  if (binding === "did:key") {
    await agent.dids.create({ method: "key", options: { keyId: key.keyId } });
    const didKey = new DidKey(publicJwk);
    return { method: "did", didUrls: [`${didKey.did}#${didKey.publicJwk.fingerprint}`] };
  }
  if (binding === "did:jwk") {
    await agent.dids.create({ method: "jwk", options: { keyId: key.keyId } });
    return { method: "did", didUrls: [`${DidJwk.fromPublicJwk(publicJwk).did}#0`] };
  }
  return { method: "jwk", keys: [publicJwk] };
}

const timingsMs = [];
const steps = [];
let sample;
let failures = 0;
for (let i = 0; i < n; i++) {
  const issuer = kinds[i % kinds.length];
  const offer = await controlPost(controlUrl, "/offers", { issuer });
  try {
    const t0 = performance.now();
    const resolved = await holder.resolveCredentialOffer(offer.offerUri);
    const t1 = performance.now();
    const token = await holder.requestToken({ resolvedCredentialOffer: resolved });
    const t2 = performance.now();
    const response = await holder.requestCredentials({
      resolvedCredentialOffer: resolved,
      credentialConfigurationIds: [offer.credentialConfigurationId],
      credentialBindingResolver,
      ...token,
    });
    const stored = await Promise.all(
      response.credentials.map((c) => agent.sdJwtVc.store({ record: c.record })),
    );
    const t3 = performance.now();
    timingsMs.push(Math.round((t3 - t0) * 10) / 10);
    steps.push({
      issuer,
      issuanceSessionId: offer.issuanceSessionId,
      resolveMs: Math.round(t1 - t0),
      tokenMs: Math.round(t2 - t1),
      credentialMs: Math.round(t3 - t2),
    });
    if (!sample) {
      const record = stored[0];
      sample = {
        issuer,
        compact: record.encoded,
        claims: record.firstCredential?.prettyClaims ?? null,
      };
    }
  } catch (error) {
    failures++;
    console.error(`offer ${i} (${issuer}) failed:`, error);
  }
}

const sorted = [...timingsMs].sort((a, b) => a - b);
const median = sorted.length === 0
  ? null
  : sorted.length % 2
  ? sorted[(sorted.length - 1) / 2]
  : Math.round((sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) * 5) / 10;
process.stdout.write(
  `${
    JSON.stringify({
      n,
      issuer: issuerArg,
      binding,
      failures,
      medianMs: median,
      minMs: sorted[0] ?? null,
      maxMs: sorted.at(-1) ?? null,
      timingsMs,
      steps,
      sample,
    })
  }\n`,
);
await agent.shutdown().catch(() => {});
process.exit(failures ? 1 : 0);
