/**
 * `DataIntegrityProof` (`eddsa-rdfc-2022`, `ecdsa-rdfc-2019` with P-256 and P-384) through the
 * service's `verifyCredential`: the W3C vectors verify and one changed byte of each does not;
 * credentials signed here with Digital Bazaar's libraries verify whatever form the DID document
 * writes the key in (did:key, Multikey, JsonWebKey); VC 2.0 `validFrom` / `validUntil`, a proof's
 * `expires` and a revoked key are honoured; the issuer rule (a DID issuer must control the key)
 * holds, and is why the employment vectors are refused although their proofs verify.
 */
import assert from "node:assert/strict";
import * as vc from "@digitalbazaar/vc";
import jsigs from "jsonld-signatures";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { cryptosuite as eddsa } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import { cryptosuite as ecdsa } from "@digitalbazaar/ecdsa-rdfc-2019-cryptosuite";
import { verifyCredential } from "../../../src/credentials/jsonld/verify.ts";
import { createDocumentLoader } from "../../../src/credentials/jsonld/document_loader.ts";
import type { LdDidDocument, ResolveDid } from "../../../src/credentials/jsonld/types.ts";
import { localResolver } from "../../support/local_resolver.ts";
import {
  changeOneByte,
  type DiIssuer,
  ecdsaIssuer,
  eddsaIssuer,
  EMPLOY_VECTOR_FILES,
  issuerAt,
  signDataIntegrity,
  VECTOR_CONTEXTS,
  VECTOR_FILES,
  vectorText,
} from "./di_keys.ts";

type Json = Record<string, unknown>;

/** The service's own did:key driver, and any hand-made documents. */
function resolverWith(docs: Json[] = []): ResolveDid {
  const byId = new Map(docs.map((d) => [d.id as string, d]));
  return async (did) =>
    (byId.get(did) ?? (await localResolver.resolve(did)).didDocument ?? null) as
      | LdDidDocument
      | null;
}

const verify = (credential: Json, resolveDid = resolverWith(), now?: Date) =>
  verifyCredential(credential, {
    resolveDid,
    documentLoader: createDocumentLoader({ resolveDid, contexts: VECTOR_CONTEXTS }),
    ...(now ? { now } : {}),
  });

for (const [name, file] of Object.entries(VECTOR_FILES)) {
  Deno.test(`W3C vector ${name}: verifies; one changed byte of the claims or the proof value does not`, async () => {
    const text = vectorText(file);
    const credential = JSON.parse(text);
    const result = await verify(credential);
    assert.deepEqual(result, {
      verified: true,
      issuer: "https://vc.example/issuers/5678",
      verificationMethod: credential.proof.verificationMethod,
    });

    const claims = await verify(JSON.parse(changeOneByte(text, "The School of Examples")));
    assert.equal(claims.verified, false);
    assert.match(claims.error ?? "", /Invalid signature/);

    const proofValue = credential.proof.proofValue as string;
    const signature = await verify(JSON.parse(changeOneByte(text, proofValue.slice(20))));
    assert.equal(signature.verified, false);
    assert.ok(signature.error);
  });
}

for (const [name, file] of Object.entries(EMPLOY_VECTOR_FILES)) {
  Deno.test(`W3C employment vector ${name}: its proof verifies, and the holder refuses it because its DID issuer did not sign it`, async () => {
    const credential = JSON.parse(vectorText(file));
    const resolveDid = resolverWith();
    const documentLoader = createDocumentLoader({ resolveDid, contexts: VECTOR_CONTEXTS });
    const suite = [
      new DataIntegrityProof({ cryptosuite: eddsa }),
      new DataIntegrityProof({ cryptosuite: ecdsa }),
    ];
    // The proof alone (Data Integrity: assertionMethod of the key's controller) verifies ...
    const proofOnly = await jsigs.verify(credential, {
      suite,
      purpose: new jsigs.purposes.AssertionProofPurpose(),
      documentLoader,
    });
    assert.equal(proofOnly.verified, true);
    // ... `@digitalbazaar/vc` binds every issuer to the key's controller ...
    const library = await vc.verifyCredential({ credential, suite, documentLoader });
    assert.equal(library.verified, false);
    assert.match(
      String(library.error?.errors?.[0]?.message),
      /issuer must match the verification method controller/,
    );
    // ... and so does the holder for a DID issuer.
    const result = await verify(credential, resolveDid);
    assert.equal(result.verified, false);
    assert.equal(result.issuer, "did:key:zDnaegE6RR3atJtHKwTRTWHsJ3kNHqFwv7n9YjTgmU7TyfU76");
    assert.match(
      result.error ?? "",
      /the issuer did:key:zDnaegE6\S+ is a DID, and \S+ is controlled by did:key:z/,
    );
  });
}

const ISSUERS: Array<[string, () => Promise<DiIssuer>]> = [
  ["eddsa-rdfc-2022", () => Promise.resolve(eddsaIssuer())],
  ["ecdsa-rdfc-2019 P-256", () => ecdsaIssuer("P-256")],
  ["ecdsa-rdfc-2019 P-384", () => ecdsaIssuer("P-384")],
];

function credentialV2(issuer: string, extra: Json = {}): Json {
  return {
    "@context": ["https://www.w3.org/ns/credentials/v2", {
      nickname: "https://schema.org/alternateName",
    }],
    type: ["VerifiableCredential"],
    issuer,
    validFrom: "2024-01-01T00:00:00Z",
    credentialSubject: { id: "did:example:holder", nickname: "Riki" },
    ...extra,
  };
}

function credentialV1(issuer: string): Json {
  return {
    "@context": ["https://www.w3.org/2018/credentials/v1", {
      nickname: "https://schema.org/alternateName",
    }],
    type: ["VerifiableCredential"],
    issuer,
    issuanceDate: "2024-01-01T00:00:00Z",
    credentialSubject: { id: "did:example:holder", nickname: "Riki" },
  };
}

for (const [name, make] of ISSUERS) {
  Deno.test(`${name}: VC 2.0 and VC 1.1 credentials signed by a did:key, a Multikey and a JsonWebKey method verify`, async () => {
    const key = await make();
    const web = "did:web:issuer.example";
    const multikey = issuerAt(key, web, "Multikey");
    const jwk = issuerAt(key, `${web}:jwk`, "JsonWebKey");
    const resolveDid = resolverWith([multikey.document, jwk.document]);
    for (const issuer of [key, multikey.issuer, jwk.issuer]) {
      for (const unsigned of [credentialV2(issuer.did), credentialV1(issuer.did)]) {
        const signed = await signDataIntegrity(unsigned, issuer);
        const proof = signed.proof as Json;
        assert.equal(proof.type, "DataIntegrityProof");
        assert.equal(proof.cryptosuite, key.cryptosuite);
        const result = await verify(signed, resolveDid);
        assert.deepEqual(result, {
          verified: true,
          issuer: issuer.did,
          verificationMethod: issuer.vmId,
        }, `${issuer.vmId} ${JSON.stringify(unsigned["@context"])}`);
      }
    }
  });
}

Deno.test("VC 2.0 validity: before validFrom and after validUntil a credential does not verify", async () => {
  const issuer = eddsaIssuer();
  const signed = await signDataIntegrity(
    credentialV2(issuer.did, {
      validFrom: "2025-01-01T00:00:00Z",
      validUntil: "2026-01-01T00:00:00Z",
    }),
    issuer,
  );
  assert.equal((await verify(signed, undefined, new Date("2025-06-01T00:00:00Z"))).verified, true);
  const early = await verify(signed, undefined, new Date("2024-12-01T00:00:00Z"));
  assert.equal(early.verified, false);
  assert.match(early.error ?? "", /before "validFrom"/);
  const late = await verify(signed, undefined, new Date("2026-02-01T00:00:00Z"));
  assert.equal(late.verified, false);
  assert.match(late.error ?? "", /after "validUntil"/);
});

Deno.test("a proof past its expires, and a proof by a revoked key, do not verify", async () => {
  const issuer = eddsaIssuer();
  // `expires` is part of the signed proof options: sign a proof that carries it.
  const suite = new DataIntegrityProof({ signer: issuer.signer, cryptosuite: eddsa });
  (suite as unknown as { proof: Json }).proof = { expires: "2025-01-01T00:00:00Z" };
  const expiring = await vc.issue({
    credential: credentialV2(issuer.did),
    suite,
    documentLoader: createDocumentLoader(),
  }) as Json;
  assert.equal((expiring.proof as Json).expires, "2025-01-01T00:00:00Z");
  assert.equal(
    (await verify(expiring, undefined, new Date("2024-12-01T00:00:00Z"))).verified,
    true,
  );
  const expired = await verify(expiring, undefined, new Date("2025-02-01T00:00:00Z"));
  assert.equal(expired.verified, false);
  assert.match(expired.error ?? "", /the proof expired at 2025-01-01T00:00:00Z/);

  const { issuer: web, document } = issuerAt(issuer, "did:web:revoked.example", "Multikey");
  const vm = (document.verificationMethod as Json[])[0]!;
  const good = await signDataIntegrity(credentialV2(web.did), web);
  assert.equal((await verify(good, resolverWith([document]))).verified, true);
  vm.revoked = "2024-06-01T00:00:00Z";
  const revoked = await verify(good, resolverWith([document]));
  assert.equal(revoked.verified, false);
  assert.match(revoked.error ?? "", /has been revoked/);
});

Deno.test("the issuer rule: an https issuer is kept on the proof alone; a DID issuer signed for by another DID's key is refused", async () => {
  const signer = eddsaIssuer();
  const https = await signDataIntegrity(credentialV2("https://issuer.example/university"), signer);
  assert.deepEqual(await verify(https), {
    verified: true,
    issuer: "https://issuer.example/university",
    verificationMethod: signer.vmId,
  });
  const other = eddsaIssuer();
  const forged = await signDataIntegrity(credentialV2(other.did), signer);
  const result = await verify(forged);
  assert.equal(result.verified, false);
  assert.match(result.error ?? "", /issuer must match the verification method controller/);
});

Deno.test("a cryptosuite this service does not verify, and a proof naming the wrong cryptosuite, are refused", async () => {
  const issuer = await ecdsaIssuer("P-256");
  const signed = await signDataIntegrity(credentialV2(issuer.did), issuer);
  const bbs = structuredClone(signed);
  (bbs.proof as Json).cryptosuite = "bbs-2023";
  const unsupported = await verify(bbs);
  assert.equal(unsupported.verified, false);
  assert.equal(unsupported.error, 'unsupported Data Integrity cryptosuite "bbs-2023"');
  const swapped = structuredClone(signed);
  (swapped.proof as Json).cryptosuite = "eddsa-rdfc-2022";
  assert.equal((await verify(swapped)).verified, false);
});
