/**
 * The PLC directory is not trusted: a tampering proxy (a real local HTTP server) in front of the
 * real reference directory changes the audit logs of DIDs written by `@did-plc/lib` on their way
 * to the service. Every change is refused with 400 `invalidDid` naming the broken rule, never a
 * document; the untouched log still resolves afterwards (a refusal is not cached).
 */
import assert from "node:assert/strict";
import { p256 } from "@noble/curves/nist.js";
import { base64urlnopad } from "@scure/base";
import { plcInterop } from "../interop/availability.ts";
import type { PlcAuditEntry } from "../interop/plc_peer.ts";
import { withReferenceDirectory } from "./plc_directory.ts";

type Log = PlcAuditEntry[];

Deno.test({
  name: "did:plc: a tampering proxy's edits, drops, reorderings and forgeries are each refused",
  ...plcInterop,
  fn: () =>
    withReferenceDirectory({}, async ({ peer, dir: proxy, get }) => {
      const [fresh, updated, rotated, tombstoned, recovery] = await peer.scenarios();
      const later = (log: Log, ms = 1000) =>
        new Date(Date.parse(log.at(-1)!.createdAt) + ms).toISOString();
      const append =
        (did: string, op: { operation: PlcAuditEntry["operation"]; cid: string }) => (log: Log) => [
          ...log,
          { did, operation: op.operation, cid: op.cid, nullified: false, createdAt: later(log) },
        ];
      // The last operation of "updated twice" is signed by its P-256 rotation key: its high-S twin.
      const last = updated!.auditLog.at(-1)!;
      const sig = p256.Signature.fromBytes(base64urlnopad.decode(last.operation.sig), "compact");
      const highS = {
        ...last.operation,
        sig: base64urlnopad.encode(
          new p256.Signature(sig.r, p256.Point.Fn.ORDER - sig.s).toBytes("compact"),
        ),
      };
      const edited = {
        ...last.operation,
        alsoKnownAs: ["at://someone-else.test"],
      };
      // The tombstoned DID's genesis again, after its tombstone.
      const [genesis, tombstone] = tombstoned!.auditLog;
      const afterTombstone = { ...genesis!.operation, prev: tombstone!.cid };
      // The CIDs a tamperer would give the changed operations (computed by the library).
      const editedCid = await peer.cid(edited);
      const highSCid = await peer.cid(highS);
      const afterCid = await peer.cid(afterTombstone);

      const cases: { name: string; did: string; change: (log: Log) => unknown; rule: string }[] = [
        {
          name: "edited field (entry's CID left as it was)",
          did: updated!.did,
          change: (log) => {
            log[1]!.operation.alsoKnownAs = ["at://evil.test"];
            return log;
          },
          rule: "CID",
        },
        {
          name: "edited field with a CID that matches the edit",
          did: updated!.did,
          change: (log) => [...log.slice(0, -1), { ...last, operation: edited, cid: editedCid }],
          rule: "signature",
        },
        {
          name: "dropped operation",
          did: updated!.did,
          change: (log) => [log[0], log[2]],
          rule: "prev",
        },
        {
          name: "reordered operations",
          did: updated!.did,
          change: (log) => [log[0], log[2], log[1]],
          rule: "prev",
        },
        {
          name: "genesis moved after an update",
          did: updated!.did,
          change: (log) => [log[1], log[0], log[2]],
          rule: "genesis",
        },
        {
          name: "operation signed by the signing key, not a rotation key",
          did: updated!.did,
          change: append(updated!.did, updated!.forged!),
          rule: "signature",
        },
        {
          name: "operation signed by a rotation key that was rotated out",
          did: rotated!.did,
          change: append(rotated!.did, rotated!.forged!),
          rule: "signature",
        },
        {
          name: "high-S twin of a valid signature",
          did: updated!.did,
          change: (log) => [...log.slice(0, -1), { ...last, operation: highS, cid: highSCid }],
          rule: "signature",
        },
        {
          name: "genesis that does not hash to the DID (another DID's log)",
          did: updated!.did,
          change: () => fresh!.auditLog.map((e) => ({ ...e, did: updated!.did })),
          rule: "genesis hash",
        },
        {
          name: "another DID's log as it is",
          did: updated!.did,
          change: () => fresh!.auditLog,
          rule: "same DID",
        },
        {
          name: "the recovery dropped (the hijack still flagged nullified)",
          did: recovery!.did,
          change: (log) => log.slice(0, 2),
          rule: "nullified flags",
        },
        {
          name: "the hijack's nullified flag cleared",
          did: recovery!.did,
          change: (log) => log.map((e) => ({ ...e, nullified: false })),
          rule: "nullified flags",
        },
        {
          name: "an update after the tombstone",
          did: tombstoned!.did,
          change: (log) => [...log, { ...log[0]!, operation: afterTombstone, cid: afterCid }],
          rule: "tombstone",
        },
        {
          name: "not an audit log",
          did: fresh!.did,
          change: () => ({ did: fresh!.did }),
          rule: "log format",
        },
        {
          name: "an operation with a member more",
          did: fresh!.did,
          change: (log) => [{ ...log[0]!, operation: { ...log[0]!.operation, note: "hi" } }],
          rule: "log format",
        },
      ];

      for (const c of cases) {
        proxy.tamper.set(c.did, c.change);
        const { status, body } = await get(`/dids/${c.did}`);
        proxy.tamper.delete(c.did);
        assert.equal(status, 400, `${c.name}: ${JSON.stringify(body)}`);
        assert.equal(body.didDocument, null, c.name);
        assert.equal(body.didResolutionMetadata.error, "invalidDid", c.name);
        const message = String(body.didResolutionMetadata.message);
        assert.ok(message.includes(`rule "${c.rule}"`), `${c.name}: ${message}`);
      }
      // Untouched, each DID resolves (a refusal was not cached).
      for (const s of [fresh!, updated!, rotated!, recovery!]) {
        const { status } = await get(`/dids/${s.did}`);
        assert.equal(status, 200, s.name);
      }
      assert.equal((await get(`/dids/${tombstoned!.did}`)).status, 410);
    }),
});
