/**
 * did:plc against the published test vectors of the reference implementations (go-didplc
 * `testdata/`, also did-method-plc `interop_tests/audit_log/`; see tests/did/vectors/plc/README.md):
 * each audit log served by a real local HTTP server in the place of the PLC directory and resolved
 * through the service. Valid logs resolve (the tombstoned one is 410); invalid ones are 400
 * `invalidDid` naming the broken rule.
 */
import assert from "node:assert/strict";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { base64urlnopad } from "@scure/base";
import { operationBytes, readAuditLog, verifyPlcLog } from "../../src/did/methods/plc/mod.ts";
import { findSigner } from "../../src/did/methods/plc/signature.ts";
import type { PlcAuditEntry } from "../interop/plc_peer.ts";
import { plcContext, plcDirectory } from "./plc_directory.ts";

const DIR = new URL("./vectors/plc/", import.meta.url);
const load = (name: string) =>
  JSON.parse(Deno.readTextFileSync(new URL(name, DIR))) as PlcAuditEntry[];
const files = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) => n.endsWith(".json"))
  .sort();

const VALID = files.filter((f) => !f.startsWith("log_invalid_"));
/** The rule each invalid vector breaks (go-didplc's error in brackets). */
const INVALID: Record<string, string> = {
  "log_invalid_sig_b64_padding_chars.json": "signature encoding", // illegal base64
  "log_invalid_sig_b64_padding_bits.json": "signature encoding", // illegal base64
  "log_invalid_sig_b64_newline.json": "signature encoding", // CRLF
  "log_invalid_sig_der.json": "signature", // cryptographic signature invalid
  "log_invalid_sig_p256_high_s.json": "signature", // cryptographic signature invalid
  "log_invalid_sig_k256_high_s.json": "signature", // cryptographic signature invalid
  "log_invalid_nullification_reused_key.json": "recovery key", // cryptographic signature invalid
  "log_invalid_nullification_too_slow.json": "recovery window", // cannot nullify op after 72h
  "log_invalid_update_nullified.json": "nullified prev", // prev CID is nullified
  "log_invalid_update_tombstoned.json": "tombstone", // no keys to verify against
};

const byDid = Object.fromEntries(files.map((f) => [load(f)[0]!.did, load(f)]));
const didOf = (file: string) => load(file)[0]!.did;

Deno.test("did:plc vectors: all 20 are here, 10 valid and 10 invalid, as the sources list them", () => {
  assert.equal(files.length, 20);
  assert.equal(VALID.length, 10);
  assert.deepEqual(
    files.filter((f) => f.startsWith("log_invalid_")).sort(),
    Object.keys(INVALID).sort(),
  );
});

Deno.test("did:plc vectors: valid logs resolve through the service to their newest valid state", async () => {
  const dir = plcDirectory({ logs: byDid });
  const { ctx, get } = await plcContext(dir.url);
  try {
    for (const f of VALID) {
      const log = load(f);
      const did = log[0]!.did;
      const valid = log.filter((e) => !e.nullified);
      const last = valid.at(-1)!;
      const tombstoned = last.operation.type === "plc_tombstone";
      const { status, body } = await get(`/dids/${did}`);
      assert.equal(status, tombstoned ? 410 : 200, `${f}: ${JSON.stringify(body)}`);
      const m = body.didDocumentMetadata;
      assert.equal(m.versionId, last.cid, f);
      assert.equal(Date.parse(m.created as string), Date.parse(log[0]!.createdAt), f);
      assert.equal(Date.parse(m.updated as string), Date.parse(last.createdAt), f);
      if (tombstoned) {
        assert.equal(body.didDocument, null, f);
        assert.equal(m.deactivated, true, f);
      } else {
        assert.equal(body.didDocument!.id, did, f);
        assert.equal(body.didResolutionMetadata.contentType, "application/did+ld+json", f);
      }
    }
  } finally {
    await ctx.close();
    await dir.close();
  }
});

Deno.test("did:plc vectors: invalid logs are 400 invalidDid naming the broken rule", async () => {
  const dir = plcDirectory({ logs: byDid });
  const { ctx, get } = await plcContext(dir.url);
  try {
    for (const [f, rule] of Object.entries(INVALID)) {
      const { status, body } = await get(`/dids/${didOf(f)}`);
      assert.equal(status, 400, `${f}: ${JSON.stringify(body)}`);
      assert.equal(body.didDocument, null, f);
      assert.equal(body.didResolutionMetadata.error, "invalidDid", f);
      assert.ok(
        String(body.didResolutionMetadata.message).includes(`rule "${rule}"`),
        `${f}: ${body.didResolutionMetadata.message}`,
      );
    }
  } finally {
    await ctx.close();
    await dir.close();
  }
});

Deno.test("did:plc: the nullified flags must be the ones the recovery rules give", () => {
  for (const f of ["log_nullification.json", "log_nullification_nontrivial.json"]) {
    const log = load(f);
    const read = readAuditLog(log);
    assert.ok(read.ok);
    const good = verifyPlcLog(log[0]!.did, read.entries);
    assert.ok(good.ok, f);
    assert.deepEqual(
      [...good.log.nullified].sort(),
      log.filter((e) => e.nullified).map((e) => e.cid).sort(),
      f,
    );
    // A directory that hides a nullification (or invents one) is refused.
    for (let i = 0; i < log.length; i++) {
      const entries = read.entries.map((e, j) => j === i ? { ...e, nullified: !e.nullified } : e);
      const bad = verifyPlcLog(log[0]!.did, entries);
      assert.ok(!bad.ok, `${f} entry ${i}`);
      assert.equal(bad.failure.rule, "nullified flags", `${f} entry ${i}`);
    }
  }
});

Deno.test("did:plc: a high-S signature is refused only because it is high-S (its low-S twin verifies)", () => {
  for (
    const [f, curve] of [
      ["log_invalid_sig_k256_high_s.json", secp256k1],
      ["log_invalid_sig_p256_high_s.json", p256],
    ] as const
  ) {
    const op = load(f)[0]!.operation as never as Parameters<typeof operationBytes>[0];
    const { unsigned } = operationBytes(op);
    const keys = (op as { rotationKeys: string[] }).rotationKeys;
    assert.equal(findSigner(op.sig, unsigned, keys).ok, false, f);
    const sig = curve.Signature.fromBytes(base64urlnopad.decode(op.sig), "compact");
    assert.ok(sig.hasHighS(), f);
    const twin = new curve.Signature(sig.r, curve.Point.Fn.ORDER - sig.s);
    const low = base64urlnopad.encode(twin.toBytes("compact"));
    assert.deepEqual(findSigner(low, unsigned, keys), { ok: true, index: 0 }, f);
  }
});

Deno.test("did:plc: a legacy create genesis renders as the plc_operation it stands for", async () => {
  const log = load("log_legacy_dholms.json");
  const did = log[0]!.did;
  const create = log[0]!.operation as Record<string, string>;
  const dir = plcDirectory({ logs: { [did]: log } });
  const { ctx, get } = await plcContext(dir.url);
  try {
    const { status, body } = await get(`/dids/${did}?versionId=${log[0]!.cid}`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.didDocument, {
      "@context": [
        "https://www.w3.org/ns/did/v1",
        "https://w3id.org/security/multikey/v1",
        "https://w3id.org/security/suites/secp256k1-2019/v1",
      ],
      id: did,
      alsoKnownAs: [`at://${create.handle}`],
      verificationMethod: [{
        id: `${did}#atproto`,
        type: "Multikey",
        controller: did,
        publicKeyMultibase: create.signingKey!.slice("did:key:".length),
      }],
      service: [{
        id: "#atproto_pds",
        type: "AtprotoPersonalDataServer",
        serviceEndpoint: create.service,
      }],
    });
    assert.equal(body.didDocumentMetadata.nextVersionId, log[1]!.cid);
    assert.equal(body.didDocumentMetadata.created, body.didDocumentMetadata.updated);
  } finally {
    await ctx.close();
    await dir.close();
  }
});

Deno.test("did:plc: versionId and versionTime select states; a nullified operation names none", async () => {
  const log = load("log_nullification_nontrivial.json");
  const did = log[0]!.did;
  const valid = log.filter((e) => !e.nullified);
  const dir = plcDirectory({ logs: { [did]: log } });
  const { ctx, get } = await plcContext(dir.url);
  try {
    for (const prefix of ["/dids/", "/1.0/identifiers/"]) {
      for (const [i, e] of valid.entries()) {
        const byId = await get(`${prefix}${did}?versionId=${e.cid}`);
        assert.equal(byId.status, 200, JSON.stringify(byId.body));
        assert.equal(byId.body.didDocumentMetadata.versionId, e.cid);
        assert.equal(byId.body.didDocumentMetadata.nextVersionId, valid[i + 1]?.cid);
        const byTime = await get(`${prefix}${did}?versionTime=${encodeURIComponent(e.createdAt)}`);
        assert.equal(byTime.body.didDocumentMetadata.versionId, e.cid);
      }
      const nullified = log.find((e) => e.nullified)!;
      const gone = await get(`${prefix}${did}?versionId=${nullified.cid}`);
      assert.equal(gone.status, 404);
      assert.match(String(gone.body.didResolutionMetadata.message), /nullified/);
      const before = await get(`${prefix}${did}?versionTime=1969-12-31T00:00:00Z`);
      assert.equal(before.status, 404);
      assert.equal(before.body.didResolutionMetadata.error, "notFound");
      const unknown = await get(`${prefix}${did}?versionId=bafyreiaaaa`);
      assert.equal(unknown.status, 404);
      const bad = await get(`${prefix}${did}?versionTime=yesterday`);
      assert.equal(bad.status, 400);
      const numbered = await get(`${prefix}${did}?versionNumber=1`);
      assert.equal(numbered.status, 400);
    }
  } finally {
    await ctx.close();
    await dir.close();
  }
});
