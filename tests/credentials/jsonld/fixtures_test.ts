import assert from "node:assert/strict";
import { verifyCredential } from "../../../src/credentials/jsonld/verify.ts";
import { createDocumentLoader } from "../../../src/credentials/jsonld/document_loader.ts";
import { resolveDidKey } from "./test_keys.ts";

type Json = Record<string, unknown>;
const read = async (name: string): Promise<Json> =>
  JSON.parse(await Deno.readTextFile(new URL(`fixtures/${name}`, import.meta.url)));

for (const name of ["ed25519_2018_vc.json", "ed25519_2020_vc.json"]) {
  Deno.test(`stored fixture ${name} (signed earlier by this module) still verifies`, async () => {
    const vc = await read(name);
    const result = await verifyCredential(vc, { resolveDid: resolveDidKey });
    assert.equal(result.verified, true, result.error);
    assert.equal(result.issuer, "did:key:z6MkneMkZqwqRiU5mJzSG3kDwzt9P8C59N4NGTfBLfSGE7c7");
  });
}

Deno.test("a credential signed by Aries Framework JavaScript (credo-ts test vector) verifies", async () => {
  const vc = await read("credo_test_vector_ed25519_2018.json");
  const examples = await read("examples_v1_context_subset.json");
  const documentLoader = createDocumentLoader({
    resolveDid: resolveDidKey,
    contexts: new Map([["https://www.w3.org/2018/credentials/examples/v1", examples]]),
  });
  const result = await verifyCredential(vc, { resolveDid: resolveDidKey, documentLoader });
  assert.equal(result.verified, true, result.error);

  const tampered = structuredClone(vc);
  ((tampered.credentialSubject as Json).degree as Json).name = "Bachelor of Nothing";
  const bad = await verifyCredential(tampered, { resolveDid: resolveDidKey, documentLoader });
  assert.equal(bad.verified, false);
});

// Credentials captured from the real Credo issuer peer (tests/interop/credo_peer), when present.
const interopDir = new URL("../../interop/fixtures/", import.meta.url);
const interopCredentials: Array<{ file: string; vc: Json }> = [];
try {
  for (const entry of Deno.readDirSync(interopDir)) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    const json = JSON.parse(Deno.readTextFileSync(new URL(entry.name, interopDir)));
    const vc = findCredential(json);
    if (vc) interopCredentials.push({ file: entry.name, vc });
  }
} catch (error: unknown) {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

Deno.test({
  name: "credentials issued by the real Credo peer (tests/interop/fixtures) verify",
  ignore: interopCredentials.length === 0,
  fn: async () => {
    for (const { file, vc } of interopCredentials) {
      const result = await verifyCredential(vc, { resolveDid: resolveDidKey });
      assert.equal(result.verified, true, `${file}: ${result.error}`);
    }
  },
});

/** Finds the first object with `proof` and `credentialSubject` anywhere in a JSON value. */
function findCredential(value: unknown): Json | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const obj = value as Json;
  if ("proof" in obj && "credentialSubject" in obj && "@context" in obj) return obj;
  for (const child of Object.values(obj)) {
    const found = findCredential(child);
    if (found) return found;
  }
  return undefined;
}
