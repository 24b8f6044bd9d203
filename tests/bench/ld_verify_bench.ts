/**
 * JSON-LD credential verification throughput (Ed25519Signature2018, did:key issuer; and the W3C
 * Data Integrity vectors: eddsa-rdfc-2022, ecdsa-rdfc-2019 P-256 and P-384).
 * "cold": a fresh document loader per verification (the DID is resolved again);
 * "warm": one loader reused (resolved DID document cached). jsonld's own
 * processed-context cache is process-wide in both cases.
 */
import { createDocumentLoader } from "../../src/credentials/jsonld/document_loader.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import { verifyCredential } from "../../src/credentials/jsonld/verify.ts";
import {
  didKeyIdentity,
  resolveDidKey,
  sampleCredential,
} from "../credentials/jsonld/test_keys.ts";
import { VECTOR_CONTEXTS, VECTOR_FILES, vectorText } from "../credentials/jsonld/di_keys.ts";

const issuer = didKeyIdentity(new Uint8Array(32).fill(9));
const vc2018 = await signCredential(sampleCredential(issuer.did), {
  keyPair: issuer.keyPair,
  suite: "Ed25519Signature2018",
});
const vc2020 = await signCredential(sampleCredential(issuer.did), {
  keyPair: issuer.keyPair,
  suite: "Ed25519Signature2020",
});
const warmLoader = createDocumentLoader({ resolveDid: resolveDidKey });

async function mustVerify(p: Promise<{ verified: boolean; error?: string }>) {
  const r = await p;
  if (!r.verified) throw new Error(r.error);
}

Deno.bench(
  "Ed25519Signature2018 verify, cold document loader",
  { group: "2018", baseline: true },
  async () => {
    await mustVerify(verifyCredential(vc2018, { resolveDid: resolveDidKey }));
  },
);

Deno.bench("Ed25519Signature2018 verify, warm document loader", { group: "2018" }, async () => {
  await mustVerify(
    verifyCredential(vc2018, { resolveDid: resolveDidKey, documentLoader: warmLoader }),
  );
});

Deno.bench("Ed25519Signature2020 verify, warm document loader", async () => {
  await mustVerify(
    verifyCredential(vc2020, { resolveDid: resolveDidKey, documentLoader: warmLoader }),
  );
});

Deno.bench("Ed25519Signature2018 sign", async () => {
  await signCredential(sampleCredential(issuer.did), {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
});

// Data Integrity (issue 34): the W3C vectors, warm loader (their example contexts given to it).
const diLoader = createDocumentLoader({ resolveDid: resolveDidKey, contexts: VECTOR_CONTEXTS });
for (const [name, file] of Object.entries(VECTOR_FILES)) {
  const vector = JSON.parse(vectorText(file));
  Deno.bench(`DataIntegrityProof ${name} verify (W3C vector), warm document loader`, {
    group: "di",
    baseline: name === "eddsa-rdfc-2022",
  }, async () => {
    await mustVerify(
      verifyCredential(vector, { resolveDid: resolveDidKey, documentLoader: diLoader }),
    );
  });
}
