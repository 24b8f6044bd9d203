/**
 * Why the service verifies did:plc logs itself instead of with the published reference library
 * (`@did-plc/lib` 0.0.4 on npm, built in 2023; the repository's newer code is not published):
 * replayed the way its own directory accepts operations (`assureValidNextOp`), it refuses valid
 * vectors of the reference implementations and accepts invalid ones, and its document rendering is
 * not today's. These tests pin that down (they fail the day a published version fixes it, which is
 * the day to reconsider); the service's verdicts on the same files are in plc_vectors_test.ts.
 */
import assert from "node:assert/strict";
import { plcInterop } from "../interop/availability.ts";
import { type PlcAuditEntry, startPlcDirectory } from "../interop/plc_peer.ts";

const DIR = new URL("./vectors/plc/", import.meta.url);
const load = (name: string) =>
  JSON.parse(Deno.readTextFileSync(new URL(name, DIR))) as PlcAuditEntry[];
const files = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) => n.endsWith(".json"))
  .sort();

Deno.test({
  name: "published @did-plc/lib: refuses 5 valid vectors and accepts 3 invalid ones",
  ...plcInterop,
  fn: async () => {
    const peer = await startPlcDirectory();
    try {
      const verdicts: Record<string, boolean> = {};
      for (const f of files) verdicts[f] = (await peer.libraryVerify(load(f))).accepted;
      const wrong = files.filter((f) => verdicts[f] === f.startsWith("log_invalid_"));
      assert.deepEqual(wrong, [
        // valid, refused: "need at least one rotation key" (a later op may empty them)
        "log_empty_rotation_keys.json",
        // invalid, accepted: padding characters, DER, high-S P-256 (WebCrypto verification)
        "log_invalid_sig_b64_padding_chars.json",
        "log_invalid_sig_der.json",
        "log_invalid_sig_p256_high_s.json",
        // valid, refused: the 72 h window is measured to the clock, not to the recovery's
        // createdAt, so no historical recovery can be replayed
        "log_nullification.json",
        "log_nullification_at_exactly_72h.json",
        "log_nullification_nontrivial.json",
        "log_nullified_tombstone.json",
      ]);
      const why = await peer.libraryVerify(load("log_nullification_nontrivial.json"));
      assert.match(String(why.error), /LateRecoveryError/);
    } finally {
      await peer.close();
    }
  },
});

Deno.test({
  name: "published @did-plc/lib: renders the older document format, not today's plc.directory one",
  ...plcInterop,
  fn: async () => {
    const peer = await startPlcDirectory();
    try {
      const log = load("log_bskyapp.json");
      const { did, operation } = log.at(-1)!;
      const { document, published } = await peer.render(did, operation) as {
        document: Record<string, unknown>;
        published: Record<string, unknown>;
      };
      const vm = (d: Record<string, unknown>) =>
        (d.verificationMethod as Record<string, string>[])[0]!;
      assert.deepEqual(
        { id: vm(document).id, type: vm(document).type },
        { id: `${did}#atproto`, type: "Multikey" },
      );
      assert.deepEqual(
        { id: vm(published).id, type: vm(published).type },
        { id: "#atproto", type: "EcdsaSecp256k1VerificationKey2019" },
      );
      assert.ok(
        (document["@context"] as string[]).includes("https://w3id.org/security/multikey/v1"),
      );
      assert.ok(
        !(published["@context"] as string[]).includes("https://w3id.org/security/multikey/v1"),
      );
    } finally {
      await peer.close();
    }
  },
});
