/**
 * did:plc rules checked locally against the committed test vectors (tests/did/vectors/plc/), with
 * no reference directory: a real local HTTP server stands in for the PLC directory and serves the
 * vectors or edited copies of them (CONTRACT "did:plc").
 *
 * - The document is the one of the latest valid operation (as plc.directory renders it), written
 *   here from that operation's fields, never the genesis one's or a nullified one's.
 * - Edits the directory could make are refused with 400 `invalidDid` naming the rule: another
 *   DID's log served under this DID (genesis hash), an entry whose `cid` is not its operation's
 *   (CID), an operation whose `prev` names no earlier one (prev), an operation after a tombstone
 *   (tombstone), a `createdAt` before its predecessor's (time order).
 */
import assert from "node:assert/strict";
import { encode } from "@ipld/dag-cbor";
import { sha256 } from "@noble/hashes/sha2.js";
import { CID } from "multiformats/cid";
import { create as createDigest } from "multiformats/hashes/digest";
import type { PlcAuditEntry } from "../interop/plc_peer.ts";
import { plcContext, plcDirectory } from "./plc_directory.ts";

type Json = Record<string, unknown>;
const DIR = new URL("./vectors/plc/", import.meta.url);
const load = (name: string) =>
  JSON.parse(Deno.readTextFileSync(new URL(name, DIR))) as PlcAuditEntry[];
const VALID = [...Deno.readDirSync(DIR)].map((e) => e.name)
  .filter((n) => n.endsWith(".json") && !n.startsWith("log_invalid_")).sort();

/** The CID (v1, dag-cbor, sha2-256) of an operation, computed here. */
const cidOf = (op: unknown) =>
  CID.create(1, 0x71, createDigest(0x12, sha256(encode(op)))).toString();

/**
 * The document plc.directory renders for an operation: DID v1 and multikey v1 contexts plus each
 * key's suite context, `alsoKnownAs`, each verification method a Multikey with an absolute id,
 * each service with a relative id; a legacy `create` as the operation it stands for.
 */
function expectedDocument(did: string, op: Json): Json {
  const legacy = op.type === "create";
  const methods = legacy ? { atproto: op.signingKey } : op.verificationMethods as Json;
  const aka = legacy ? [`at://${op.handle}`] : op.alsoKnownAs;
  const services = legacy
    ? { atproto_pds: { type: "AtprotoPersonalDataServer", endpoint: op.service } }
    : op.services as Record<string, Json>;
  const context = ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"];
  for (const key of Object.values(methods).map(String)) {
    const suite = key.startsWith("did:key:zDn")
      ? "https://w3id.org/security/suites/ecdsa-2019/v1"
      : "https://w3id.org/security/suites/secp256k1-2019/v1";
    if (!context.includes(suite)) context.push(suite);
  }
  return {
    "@context": context,
    id: did,
    alsoKnownAs: aka,
    verificationMethod: Object.entries(methods).map(([id, key]) => ({
      id: `${did}#${id}`,
      type: "Multikey",
      controller: did,
      publicKeyMultibase: String(key).replace(/^did:key:/, ""),
    })),
    service: Object.entries(services).map(([id, s]) => ({
      id: `#${id}`,
      type: s.type,
      serviceEndpoint: s.endpoint,
    })),
  };
}

Deno.test("did:plc vectors: each document is the latest valid operation's, as plc.directory renders it", async () => {
  const logs = Object.fromEntries(VALID.map((f) => [load(f)[0]!.did, load(f)]));
  const dir = plcDirectory({ logs });
  const { ctx, get } = await plcContext(dir.url);
  try {
    let changed = 0;
    for (const f of VALID) {
      const log = load(f);
      const did = log[0]!.did;
      const valid = log.filter((e) => !e.nullified);
      const last = valid.at(-1)!.operation as unknown as Json;
      if (last.type === "plc_tombstone") continue;
      const { status, body } = await get(`/dids/${did}`);
      assert.equal(status, 200, f);
      const expected = expectedDocument(did, last);
      assert.deepEqual(body.didDocument, expected, f);
      if (
        JSON.stringify(expectedDocument(did, log[0]!.operation as unknown as Json)) !==
          JSON.stringify(expected)
      ) changed++;
    }
    // The comparison means something: in most vectors the genesis document is another one.
    assert.ok(changed >= 5, `${changed} vectors change their document after the genesis`);
  } finally {
    await ctx.close();
    await dir.close();
  }
});

Deno.test("did:plc: another DID's log, a wrong cid, an unknown prev, an operation after a tombstone and a createdAt going back are each 400 naming the rule", async () => {
  const bsky = load("log_bskyapp.json");
  const tombstoned = load("log_tombstone.json");
  const other = load("log_bnewbold_robocracy.json");
  const later = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
  const withOp = (e: PlcAuditEntry, operation: Json): PlcAuditEntry => ({
    ...e,
    operation: operation as PlcAuditEntry["operation"],
    cid: cidOf(operation),
  });
  const cases: { name: string; did: string; log: PlcAuditEntry[]; rule: string }[] = [
    {
      // A validly signed log, but of another DID, served as this one's.
      name: "another DID's log",
      did: bsky[0]!.did,
      log: other.map((e) => ({ ...e, did: bsky[0]!.did })),
      rule: "genesis hash",
    },
    {
      name: "a cid that is not the operation's",
      did: bsky[0]!.did,
      log: [bsky[0]!, {
        ...bsky[1]!,
        cid: bsky[0]!.cid.replace(/.$/, (c) => c === "a" ? "b" : "a"),
      }],
      rule: "CID",
    },
    {
      name: "prev names no earlier operation",
      did: bsky[0]!.did,
      log: [bsky[0]!, withOp(bsky[1]!, { ...bsky[1]!.operation, prev: cidOf({ nothing: 1 }) })],
      rule: "prev",
    },
    {
      name: "an operation after the tombstone",
      did: tombstoned[0]!.did,
      log: [
        ...tombstoned,
        withOp({ ...tombstoned[0]!, createdAt: later(tombstoned[1]!.createdAt, 1000) }, {
          ...tombstoned[0]!.operation,
          prev: tombstoned[1]!.cid,
        }),
      ],
      rule: "tombstone",
    },
    {
      name: "createdAt before its predecessor's",
      did: bsky[0]!.did,
      log: [bsky[0]!, { ...bsky[1]!, createdAt: later(bsky[0]!.createdAt, -1000) }],
      rule: "time order",
    },
  ];
  const dir = plcDirectory();
  const { ctx, get } = await plcContext(dir.url);
  try {
    for (const c of cases) {
      dir.logs.set(c.did, c.log);
      const { status, body } = await get(`/dids/${c.did}?noCache=true`);
      assert.equal(status, 400, `${c.name}: ${JSON.stringify(body)}`);
      assert.equal(body.didDocument, null, c.name);
      assert.equal(body.didResolutionMetadata.error, "invalidDid", c.name);
      assert.match(
        String(body.didResolutionMetadata.message),
        new RegExp(`rule "${c.rule}"`),
        c.name,
      );
    }
    // The untouched logs resolve: the refusals were the edits'.
    for (const log of [bsky, tombstoned]) {
      dir.logs.set(log[0]!.did, log);
      const { status } = await get(`/dids/${log[0]!.did}?noCache=true`);
      assert.equal(status, log === bsky ? 200 : 410);
    }
  } finally {
    await ctx.close();
    await dir.close();
  }
});
