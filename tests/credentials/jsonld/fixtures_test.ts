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

// Credentials issued by the real Credo 0.6 issuer peer (tests/interop/credo_peer) and
// captured in tests/interop/fixtures/*.json, when that folder exists: every credential
// found anywhere in those files is checked; one under a key naming it "tampered" must
// fail, every other one must verify.
const interopDir = new URL("../../interop/fixtures/", import.meta.url);
const interopCredentials: Array<{ where: string; vc: Json; tampered: boolean }> = [];
try {
  for (const entry of Deno.readDirSync(interopDir)) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    const json = JSON.parse(Deno.readTextFileSync(new URL(entry.name, interopDir)));
    collectCredentials(json, entry.name, interopCredentials);
  }
} catch (error: unknown) {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

Deno.test({
  name: "credentials issued by the real Credo peer verify, tampered ones do not",
  ignore: interopCredentials.length === 0,
  fn: async () => {
    assert.ok(interopCredentials.some((c) => !c.tampered), "no untampered Credo credential");
    for (const { where, vc, tampered } of interopCredentials) {
      const result = await verifyCredential(vc, { resolveDid: resolveDidKey });
      assert.equal(result.verified, !tampered, `${where}: ${result.error}`);
      if (tampered) assert.match(result.error ?? "", /Invalid signature/, where);
    }
  },
});

/** Collects every object with `@context`, `proof` and `credentialSubject` in a JSON value. */
function collectCredentials(
  value: unknown,
  where: string,
  out: Array<{ where: string; vc: Json; tampered: boolean }>,
): void {
  if (typeof value !== "object" || value === null) return;
  const obj = value as Json;
  if ("proof" in obj && "credentialSubject" in obj && "@context" in obj) {
    out.push({ where, vc: obj, tampered: /tamper/i.test(where) });
    return;
  }
  for (const [key, child] of Object.entries(obj)) collectCredentials(child, `${where}/${key}`, out);
}
