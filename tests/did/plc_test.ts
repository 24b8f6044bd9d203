/**
 * did:plc against a real PLC directory: `@did-plc/server` (the reference directory) in memory under
 * Node.js, with DIDs written by `@did-plc/lib` (fresh; updated twice; rotation-key change;
 * tombstoned; recovered by nullification) and one legacy `create` genesis log. Every state of every
 * DID is compared with the reference implementation's rendering of it (did-method-plc
 * `document.ts`, computed in the Node peer), never with the directory's rendering.
 */
import assert from "node:assert/strict";
import { plcInterop } from "../interop/availability.ts";
import type { PlcScenario } from "../interop/plc_peer.ts";
import { waitFor } from "../support/wait.ts";
import { plcContext, withReferenceDirectory } from "./plc_directory.ts";

const T0 = 1_700_000_000_000;

Deno.test({
  name: "did:plc from a real PLC directory: every state of every DID is the reference rendering",
  ...plcInterop,
  // The legacy genesis log is served by the proxy stand-in (directories refuse `create` now);
  // everything else comes from the real directory through it.
  fn: () =>
    withReferenceDirectory({}, async ({ peer, dir, get }) => {
      const scenarios: PlcScenario[] = [...await peer.scenarios(), await peer.legacy()];
      const legacy = scenarios.at(-1)!;
      dir.logs.set(legacy.did, legacy.auditLog);
      assert.deepEqual(scenarios.map((s) => s.name), [
        "fresh",
        "updated twice",
        "rotation-key change",
        "tombstoned",
        "recovery",
        "legacy create",
      ]);
      for (const s of scenarios) {
        const last = s.states.at(-1)!;
        const now = await get(`/dids/${s.did}`);
        assert.equal(
          now.status,
          last.document ? 200 : 410,
          `${s.name}: ${JSON.stringify(now.body)}`,
        );
        assert.deepEqual(now.body.didDocument, last.document, s.name);
        const m = now.body.didDocumentMetadata;
        assert.equal(m.versionId, last.cid, s.name);
        assert.equal(Date.parse(m.created as string), Date.parse(s.auditLog[0]!.createdAt), s.name);
        assert.equal(Date.parse(m.updated as string), Date.parse(last.createdAt), s.name);
        assert.equal(m.deactivated, last.document ? undefined : true, s.name);
        // Every earlier state, by versionId and by versionTime.
        for (const [i, state] of s.states.entries()) {
          const byId = await get(`/dids/${s.did}?versionId=${state.cid}`);
          assert.equal(byId.status, state.document ? 200 : 410, `${s.name} #${i}`);
          assert.deepEqual(byId.body.didDocument, state.document, `${s.name} #${i}`);
          assert.equal(byId.body.didDocumentMetadata.nextVersionId, s.states[i + 1]?.cid);
          const at = encodeURIComponent(state.createdAt);
          const byTime = await get(`/1.0/identifiers/${s.did}?versionTime=${at}`);
          assert.equal(byTime.body.didDocumentMetadata.versionId, state.cid, `${s.name} #${i}`);
        }
      }

      const [fresh, updated, rotated, , recovery] = scenarios;
      // What each DID was written to say.
      const doc = (s: PlcScenario, i = -1) => s.states.at(i)!.document as Record<string, unknown>;
      assert.deepEqual(doc(fresh!).alsoKnownAs, ["at://fresh.test"]);
      assert.deepEqual(updated!.states.map((st) => st.document!.alsoKnownAs), [
        ["at://updated.test"],
        ["at://renamed.updated.test"],
        ["at://renamed.updated.test"],
      ]);
      const vm = (d: Record<string, unknown>) =>
        (d.verificationMethod as { publicKeyMultibase: string }[])[0]!.publicKeyMultibase;
      assert.equal(`did:key:${vm(doc(updated!))}`, updated!.keys.signing);
      assert.equal(`did:key:${vm(doc(updated!, 0))}`, updated!.keys.firstSigning);
      assert.equal(
        (doc(updated!).service as { serviceEndpoint: string }[])[0]!.serviceEndpoint,
        "https://pds2.updated.test",
      );
      assert.deepEqual(doc(rotated!).alsoKnownAs, ["at://after.rotated.test"]);
      // The recovery: the hijacked state is nullified, named by no version, shown nowhere.
      const hijack = recovery!.auditLog.find((e) => e.nullified)!;
      assert.equal(recovery!.auditLog.filter((e) => e.nullified).length, 1);
      const gone = await get(`/dids/${recovery!.did}?versionId=${hijack.cid}`);
      assert.equal(gone.status, 404);
      assert.match(String(gone.body.didResolutionMetadata.message), /nullified/);
      for (const st of recovery!.states) {
        assert.ok(!JSON.stringify(st.document).includes("hijacked"));
      }
      // A network method: the second answer comes from the cache.
      const again = await get(`/dids/${fresh!.did}`);
      assert.equal(again.body.didResolutionMetadata.servedFromCache, true);
    }),
});

Deno.test({
  name: "did:plc: unknown is 404; malformed is 400 before any request; a failing directory is 500",
  ...plcInterop,
  fn: async () => {
    const url = await withReferenceDirectory({}, async ({ peer, dir, get }) => {
      const unknown = await get(`/dids/did:plc:${"a".repeat(24)}`);
      assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
      assert.equal(unknown.body.didResolutionMetadata.error, "notFound");
      assert.equal(dir.seen.length, 1);
      for (
        const id of [
          "a".repeat(23),
          "a".repeat(25),
          "A".repeat(24),
          "0".repeat(24),
          "8".repeat(24),
          `${"a".repeat(23)}-`,
        ]
      ) {
        const bad = await get(`/dids/did:plc:${id}`);
        assert.equal(bad.status, 400, id);
        assert.equal(bad.body.didResolutionMetadata.error, "invalidDid", id);
      }
      assert.equal(dir.seen.length, 1, "no request for a malformed did:plc");
      const [fresh] = await peer.scenarios();
      dir.status = 503;
      const down = await get(`/dids/${fresh!.did}`);
      assert.equal(down.status, 500);
      assert.equal(down.body.didResolutionMetadata.error, "internalError");
      assert.match(String(down.body.didResolutionMetadata.message), /503/);
      return dir.url;
    });
    // Nothing listening at the directory's address any more.
    const closed = await plcContext(url);
    try {
      const r = await closed.get(`/dids/did:plc:${"b".repeat(24)}`);
      assert.equal(r.status, 500);
      assert.equal(r.body.didResolutionMetadata.error, "internalError");
    } finally {
      await closed.ctx.close();
    }
  },
});

Deno.test({
  name: "did:plc: cached like did:web: a stale answer is still served while the directory fails",
  ...plcInterop,
  fn: () => {
    let t = T0;
    const options = {
      now: () => t,
      env: { DID_CACHE_TTL_SECONDS: "60", DID_CACHE_MAX_STALE_SECONDS: "600" },
    };
    return withReferenceDirectory(options, async ({ peer, dir, get }) => {
      const [, updated] = await peer.scenarios();
      const first = await get(`/dids/${updated!.did}`);
      assert.equal(first.status, 200);
      assert.equal(first.body.didResolutionMetadata.servedFromCache, false);
      const requests = dir.seen.length;
      const hit = await get(`/dids/${updated!.did}`);
      assert.equal(hit.body.didResolutionMetadata.servedFromCache, true);
      assert.equal(dir.seen.length, requests, "a fresh hit asks the directory nothing");
      dir.status = 502;
      t += 61_000;
      const stale = await get(`/dids/${updated!.did}`);
      assert.equal(stale.status, 200);
      assert.equal(stale.body.didResolutionMetadata.servedFromCache, true);
      assert.deepEqual(stale.body.didDocument, first.body.didDocument);
      await waitFor("the failed background refresh", () => dir.seen.length === requests + 1);
    });
  },
});
