/**
 * did:webvh against a real local host serving logs made by didwebvh-ts, compared with what
 * didwebvh-ts's own `resolveDID` makes of the same host. The host is `localhost` (did:webvh
 * forbids IP hosts); the service's safe client resolves that name to 127.0.0.1 through an
 * injected lookup, and the library's `fetch` is pointed at http for the comparison (it only
 * speaks https).
 */
import assert from "node:assert/strict";
import * as vh from "didwebvh-ts";
import { createTestContext, type TestContext } from "../support/context.ts";
import {
  buildCases,
  copyLog,
  libraryVerifier,
  resignWith,
  TestKey,
  webvhHost,
} from "./webvh_fixtures.ts";

const hostA = webvhHost();
const hostB = webvhHost();
const suite = await buildCases(hostA.address, hostB.address);
for (const c of suite.cases) {
  (c.name.startsWith("portable") ? hostB : hostA).publish(c.log, c.path, c.witness);
}
const byName = (name: string) => suite.cases.find((c) => c.name === name)!;

async function context(
  env: Record<string, string> = {},
): Promise<{ ctx: TestContext; token: string }> {
  const ctx = await createTestContext({
    env,
    build: { resolveHost: (host) => Promise.resolve(host === "localhost" ? ["127.0.0.1"] : []) },
  });
  return { ctx, token: await ctx.token() };
}

type Result = {
  didDocument: Record<string, unknown> | null;
  didDocumentMetadata: Record<string, unknown>;
  didResolutionMetadata: Record<string, unknown>;
};

async function get(ctx: TestContext, token: string, path: string) {
  const res = await ctx.call("GET", path, { token });
  return { status: res.status, body: await res.json() as Result };
}

/** didwebvh-ts's own resolveDID over the same host (https → http for the local host). */
async function libraryResolve(did: string, options: Record<string, unknown> = {}) {
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    original(
      String(input instanceof Request ? input.url : input).replace(
        /^https:\/\/localhost:/,
        "http://localhost:",
      ),
      init,
    )) as typeof fetch;
  try {
    return await vh.resolveDID(did, { verifier: libraryVerifier, ...options });
  } finally {
    globalThis.fetch = original;
  }
}

Deno.test("did:webvh: each case resolves to what didwebvh-ts resolves from the same host", async () => {
  const { ctx, token } = await context();
  try {
    for (const c of suite.cases) {
      const ours = await get(ctx, token, `/dids/${c.did}`);
      const theirs = await libraryResolve(c.did);
      const deactivated = c.name === "deactivated";
      assert.equal(ours.status, deactivated ? 410 : 200, `${c.name}: ${JSON.stringify(ours.body)}`);
      assert.equal(
        theirs.meta.error,
        undefined,
        `${c.name}: library ${JSON.stringify(theirs.meta)}`,
      );
      assert.deepEqual(ours.body.didDocument, theirs.doc ?? null, c.name);
      const m = ours.body.didDocumentMetadata;
      assert.equal(m.versionId, theirs.meta.versionId, c.name);
      assert.equal(m.created, theirs.meta.created, c.name);
      assert.equal(m.updated, theirs.meta.updated, c.name);
      assert.equal(m.versionNumber, c.log.length, c.name);
      assert.equal(m.deactivated === true, theirs.meta.deactivated, c.name);
      if (!deactivated) assert.equal(ours.body.didDocument!.id, c.did);
    }
    // The updated DID: its second key and its service.
    const u = await get(ctx, token, `/dids/${byName("updated twice").did}`);
    const keys = (u.body.didDocument!.verificationMethod as { publicKeyMultibase: string }[])
      .map((v) => v.publicKeyMultibase);
    assert.deepEqual(keys, [suite.keys.k2.multikey]);
    assert.ok(JSON.stringify(u.body.didDocument!.service).includes("#linked"));
    // Served from the cache the second time (a network method).
    const again = await get(ctx, token, `/dids/${byName("fresh").did}`);
    assert.equal(again.body.didResolutionMetadata.servedFromCache, true);
  } finally {
    await ctx.close();
  }
});

Deno.test("did:webvh: versionId, versionNumber and versionTime select earlier versions", async () => {
  const { ctx, token } = await context();
  try {
    const c = byName("updated twice");
    const [e1, e2, e3] = c.log;
    // Half a second after the second entry: the version in effect then is the second.
    const between = new Date(Date.parse(e2!.versionTime) + 500).toISOString();
    const cases: [string, Record<string, unknown>, string][] = [
      [`versionNumber=1`, { versionNumber: 1 }, e1!.versionId],
      [`versionId=${e2!.versionId}`, { versionId: e2!.versionId }, e2!.versionId],
      [`versionNumber=3`, { versionNumber: 3 }, e3!.versionId],
      [
        `versionTime=${encodeURIComponent(between)}`,
        { versionTime: new Date(between) },
        e2!.versionId,
      ],
    ];
    for (const prefix of ["/dids/", "/1.0/identifiers/"]) {
      for (const [query, libOptions, versionId] of cases) {
        const ours = await get(ctx, token, `${prefix}${c.did}?${query}`);
        assert.equal(ours.status, 200, `${query}: ${JSON.stringify(ours.body)}`);
        assert.equal(ours.body.didDocumentMetadata.versionId, versionId, query);
        const theirs = await libraryResolve(c.did, libOptions);
        assert.deepEqual(ours.body.didDocument, theirs.doc, query);
      }
      const first = await get(ctx, token, `${prefix}${c.did}?versionNumber=1`);
      assert.equal(
        (first.body.didDocument!.verificationMethod as { publicKeyMultibase: string }[])[0]!
          .publicKeyMultibase,
        suite.keys.k1.multikey,
      );
      const none = await get(ctx, token, `${prefix}${c.did}?versionNumber=9`);
      assert.equal(none.status, 404);
      assert.equal(none.body.didResolutionMetadata.error, "notFound");
      const bad = await get(ctx, token, `${prefix}${c.did}?versionTime=yesterday`);
      assert.equal(bad.status, 400);
      // A time without its zone names no instant (it was read as this server's local time).
      const zoneless = await get(
        ctx,
        token,
        `${prefix}${c.did}?versionTime=${between.slice(0, -1)}`,
      );
      assert.equal(zoneless.status, 400, JSON.stringify(zoneless.body));
      assert.equal(zoneless.body.didResolutionMetadata.error, "invalidDidUrl");
      assert.match(String(zoneless.body.didResolutionMetadata.message), /time zone/);
    }
    // A deactivated DID's earlier version is still readable.
    const d = byName("deactivated");
    const before = await get(ctx, token, `/dids/${d.did}?versionNumber=1`);
    assert.equal(before.status, 200);
    assert.equal(before.body.didDocument!.id, d.did);
  } finally {
    await ctx.close();
  }
});

Deno.test("did:webvh: tampered logs are invalidDid naming the rule, never a 5xx", async () => {
  const { ctx, token } = await context();
  const updated = byName("updated twice");
  const fresh = byName("fresh");
  const witnessed = byName("witnessed");
  const file = (c: { path: string }) => `/${c.path}/did.jsonl`;
  const original = new Map(hostA.files);
  const inTheFuture = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, "Z");
  const edited = copyLog(updated.log);
  (edited[1]!.state.verificationMethod as { publicKeyMultibase?: string }[])[0]!
    .publicKeyMultibase = new TestKey().multikey;
  const future = copyLog(fresh.log);
  future[0]!.versionTime = inTheFuture;
  const tampered: {
    name: string;
    did: string;
    set: () => Promise<void> | void;
    rule: RegExp;
  }[] = [
    {
      name: "edited entry",
      did: updated.did,
      set: () => hostA.publish(edited, updated.path),
      rule: /hash chain broken|failed verification/i,
    },
    {
      name: "broken chain (an entry removed)",
      did: updated.did,
      set: () => hostA.publish([updated.log[0], updated.log[2]], updated.path),
      rule: /version|chain/i,
    },
    {
      name: "wrong signer",
      did: updated.did,
      set: async () => {
        const log = copyLog(updated.log);
        log[2] = await resignWith(log[2]!, new TestKey());
        hostA.publish(log, updated.path);
      },
      rule: /not authorized to update/i,
    },
    {
      name: "wrong SCID",
      did: fresh.did.replace(/^did:webvh:(.)/, (_m, ch) => `did:webvh:${ch === "Q" ? "R" : "Q"}`),
      set: () => {},
      rule: /SCID/,
    },
    {
      name: "versionTime in the future",
      did: fresh.did,
      set: () => hostA.publish(future, fresh.path),
      rule: /future/i,
    },
    {
      name: "witness proofs missing",
      did: witnessed.did,
      set: () => void hostA.files.delete(`/${witnessed.path}/did-witness.json`),
      rule: /witness threshold not met/i,
    },
    {
      name: "not JSON Lines",
      did: fresh.did,
      set: () => void hostA.files.set(file(fresh), "{not json\n"),
      rule: /line 1 of did\.jsonl is not JSON/,
    },
  ];
  try {
    for (const t of tampered) {
      hostA.files.clear();
      for (const [k, v] of original) hostA.files.set(k, v);
      await t.set();
      const ours = await get(ctx, token, `/dids/${t.did}?noCache=true`);
      assert.equal(ours.status, 400, `${t.name}: ${JSON.stringify(ours.body)}`);
      assert.equal(ours.body.didResolutionMetadata.error, "invalidDid", t.name);
      assert.match(
        String(ours.body.didResolutionMetadata.message),
        t.rule,
        `${t.name}: ${ours.body.didResolutionMetadata.message}`,
      );
      assert.equal(ours.body.didDocument, null);
    }
  } finally {
    hostA.files.clear();
    for (const [k, v] of original) hostA.files.set(k, v);
    await ctx.close();
  }
});

Deno.test("did:webvh: no log is notFound; an IP host is invalidDid without a request", async () => {
  const { ctx, token } = await context();
  try {
    const scid = byName("fresh").did.split(":")[2];
    const missing = await get(
      ctx,
      token,
      `/dids/did:webvh:${scid}:localhost%3A${hostA.port}:nothing`,
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body.didResolutionMetadata.error, "notFound");

    const before = hostA.seen.length;
    const ip = await get(ctx, token, `/dids/did:webvh:${scid}:127.0.0.1%3A${hostA.port}:fresh`);
    assert.equal(ip.status, 400);
    assert.equal(ip.body.didResolutionMetadata.error, "invalidDid");
    assert.match(String(ip.body.didResolutionMetadata.message), /IP address/);
    assert.equal(hostA.seen.length, before);

    const noHost = await get(ctx, token, `/dids/did:webvh:${scid}`);
    assert.equal(noHost.status, 400);
  } finally {
    await ctx.close();
  }
});

Deno.test("did:webvh: DID URLs dereference (a key by its fragment, a version's key)", async () => {
  const { ctx, token } = await context();
  try {
    const c = byName("updated twice");
    const doc = (await get(ctx, token, `/dids/${c.did}`)).body.didDocument!;
    const vmId = (doc.verificationMethod as { id: string }[])[0]!.id;
    const res = await ctx.call("GET", `/1.0/identifiers/${vmId.replace("#", "%23")}`, { token });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).publicKeyMultibase, suite.keys.k2.multikey);
  } finally {
    await ctx.close();
  }
});

Deno.test("did:webvh is cached like did:web; version queries reach the host; a configured example is listed", async () => {
  const c = byName("updated twice");
  const { ctx, token } = await context({
    DID_CACHE_TTL_SECONDS: "120",
    DID_TEST_IDENTIFIERS: c.did,
  });
  try {
    const logPath = `/${c.path}/did.jsonl`;
    const fetches = () => hostA.seen.filter((p) => p === logPath).length;
    const before = fetches();
    const first = await get(ctx, token, `/dids/${c.did}`);
    const second = await get(ctx, token, `/dids/${c.did}`);
    assert.equal(first.body.didResolutionMetadata.servedFromCache, false);
    assert.equal(second.body.didResolutionMetadata.servedFromCache, true);
    assert.deepEqual(second.body.didDocument, first.body.didDocument);
    assert.equal(fetches() - before, 1, "one fetch of did.jsonl for two resolutions");

    const v1 = await get(ctx, token, `/dids/${c.did}?versionNumber=1`);
    assert.equal(v1.status, 200);
    assert.equal(v1.body.didDocumentMetadata.versionNumber, 1);
    assert.equal(fetches() - before, 2, "a version query is resolved from the host");

    const ids = await (await ctx.call("GET", "/1.0/testIdentifiers", { token })).json();
    assert.deepEqual(ids.webvh, [c.did]);
    const methods = await (await ctx.call("GET", "/1.0/methods", { token })).json();
    assert.ok(methods.includes("webvh"), JSON.stringify(methods));
  } finally {
    await ctx.close();
  }
});

globalThis.addEventListener("unload", () => {
  hostA.close();
  hostB.close();
});
