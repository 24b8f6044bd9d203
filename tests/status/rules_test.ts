/**
 * The pure rules: how long a list is used (`freshUntil`), what is read of a credential
 * (`targetOf`: the SD-JWT's signed payload only, never a disclosure), and the decompression cap.
 */
import assert from "node:assert/strict";
import { inflatedSize } from "../../src/status/inflate.ts";
import { freshUntil } from "../../src/status/list_cache.ts";
import { targetOf } from "../../src/status/target.ts";

Deno.test("freshUntil: the list's ttl, else the default; never past its expiry", () => {
  const at = 1_000_000;
  assert.equal(freshUntil({ fetchedAt: at, ttlMs: 5_000, defaultTtlMs: 300_000 }), at + 5_000);
  assert.equal(freshUntil({ fetchedAt: at, defaultTtlMs: 300_000 }), at + 300_000);
  assert.equal(freshUntil({ fetchedAt: at, ttlMs: 0, defaultTtlMs: 300_000 }), at + 300_000);
  assert.equal(freshUntil({ fetchedAt: at, ttlMs: -1, defaultTtlMs: 7 }), at + 7);
  assert.equal(freshUntil({ fetchedAt: at, ttlMs: NaN, defaultTtlMs: 7 }), at + 7);
  assert.equal(
    freshUntil({ fetchedAt: at, ttlMs: 5_000, expiresAt: at + 2_000, defaultTtlMs: 300_000 }),
    at + 2_000,
  );
  assert.equal(
    freshUntil({ fetchedAt: at, expiresAt: at - 1, defaultTtlMs: 300_000 }),
    at - 1,
    "an expired list is never fresh",
  );
});

const b64u = (o: unknown) =>
  btoa(JSON.stringify(o)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

Deno.test("targetOf: JSON-LD entries (one or several) and the SD-JWT's signed status only", () => {
  const one = { type: "BitstringStatusListEntry", statusListCredential: "https://s/1" };
  assert.deepEqual(
    targetOf({ format: "ldp_vc", credential: { issuer: { id: "did:x" }, credentialStatus: one } }),
    { format: "ldp_vc", issuer: "did:x", entries: [one] },
  );
  assert.deepEqual(
    targetOf({ format: "ldp_vc", credential: { issuer: "did:y", credentialStatus: [one, "x"] } }),
    { format: "ldp_vc", issuer: "did:y", entries: [one] },
  );
  const jwt = (payload: unknown) => `${b64u({ alg: "EdDSA" })}.${b64u(payload)}.sig`;
  const status = { status_list: { idx: 4, uri: "https://s/t" } };
  assert.deepEqual(
    targetOf({ format: "dc+sd-jwt", compact: `${jwt({ iss: "did:z", status })}~` }),
    {
      format: "dc+sd-jwt",
      issuer: "did:z",
      reference: { idx: 4, uri: "https://s/t" },
    },
  );
  // A status only in a disclosure is not read: the target has no reference.
  const disclosure = b64u(["salt", "status", status]);
  assert.deepEqual(
    targetOf({
      format: "dc+sd-jwt",
      compact: `${jwt({ iss: "did:z", _sd: ["d"] })}~${disclosure}~`,
    }),
    { format: "dc+sd-jwt", issuer: "did:z" },
  );
  const bad = targetOf({
    format: "dc+sd-jwt",
    compact: `${jwt({ iss: "did:z", status: { status_list: { idx: -1, uri: 3 } } })}~`,
  });
  assert.match(bad.format === "dc+sd-jwt" ? bad.problem ?? "" : "", /non-negative integer idx/);
});

Deno.test("inflatedSize: the decompressed size, refused past the cap or when not compressed", async () => {
  const data = new Uint8Array(4096).fill(1);
  const gz = new Uint8Array(
    await new Response(new Blob([data]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  assert.equal(await inflatedSize(gz, "gzip"), 4096);
  await assert.rejects(inflatedSize(gz, "gzip", 1000), /more than 1000 bytes/);
  await assert.rejects(inflatedSize(new Uint8Array([1, 2, 3]), "gzip"), /not valid gzip/);
});
