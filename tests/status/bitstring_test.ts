/**
 * JSON-LD credential status (Bitstring Status List v1.0 and Status List 2021) against a real local
 * list host, lists signed by the test's own issuer keys: revocation and suspension bits; a list
 * signed by another key, or issued by another issuer, is never `valid`; a list shorter than the
 * 16 KB minimum is refused; a fetched list is used until its `ttl` (milliseconds) and never past
 * its `expirationDate` (an injected clock).
 */
import assert from "node:assert/strict";
import { entry, listCredential, statusSetup, T0, testIssuer } from "./lists.ts";

async function setup() {
  const s = await statusSetup();
  return {
    ...s,
    statusOf: (entries: Record<string, unknown>[], iss = s.issuer.did) =>
      s.ctx.services.status.statusOf({
        format: "ldp_vc",
        credential: { issuer: iss, credentialStatus: entries.length === 1 ? entries[0] : entries },
      }),
  };
}

Deno.test("Bitstring Status List: revocation and suspension bits; Status List 2021 too; no entry is unknown", async () => {
  const s = await setup();
  try {
    const rev = s.host.url("/rev");
    const sus = s.host.url("/sus");
    const old = s.host.url("/sl2021");
    s.host.serveJson("/rev", await listCredential({ url: rev, issuer: s.issuer, set: [7] }));
    s.host.serveJson(
      "/sus",
      await listCredential({ url: sus, issuer: s.issuer, purpose: "suspension", set: [9] }),
    );
    s.host.serveJson(
      "/sl2021",
      await listCredential({ url: old, issuer: s.issuer, set: [3], type: "StatusList2021" }),
    );
    assert.equal((await s.statusOf([entry(rev, 6)])).state, "valid");
    assert.equal((await s.statusOf([entry(rev, 7)])).state, "revoked");
    assert.equal(
      (await s.statusOf([entry(rev, 9), entry(sus, 9, "suspension")])).state,
      "suspended",
    );
    assert.equal(
      (await s.statusOf([entry(rev, 7), entry(sus, 9, "suspension")])).state,
      "revoked",
    );
    assert.equal(
      (await s.statusOf([entry(old, 3, "revocation", "StatusList2021Entry")])).state,
      "revoked",
    );
    assert.equal(
      (await s.statusOf([entry(old, 4, "revocation", "StatusList2021Entry")])).state,
      "valid",
    );
    assert.equal(s.host.hits(), 3, "each list fetched once");
    const none = await s.statusOf([]);
    assert.equal(none.state, "unknown");
    assert.match(none.message ?? "", /no status entry/);
    const purpose = await s.statusOf([entry(rev, 7, "message")]);
    assert.equal(purpose.state, "unknown");
    assert.match(purpose.message ?? "", /not ones this service checks/);
  } finally {
    await s.close();
  }
});

Deno.test("Bitstring Status List: a list signed by another key, by another issuer, with another purpose or too short is never valid", async () => {
  const s = await setup();
  try {
    const mallory = await testIssuer();
    const url = (p: string) => s.host.url(p);
    // Claims the credential's issuer, signed with Mallory's key.
    s.host.serveJson(
      "/forged",
      await listCredential({ url: url("/forged"), issuer: s.issuer, signer: mallory }),
    );
    // Mallory's own list, properly signed by Mallory.
    s.host.serveJson("/mallory", await listCredential({ url: url("/mallory"), issuer: mallory }));
    // A list whose bits were changed after signing.
    const tampered = await listCredential({ url: url("/tampered"), issuer: s.issuer, set: [1] });
    const fresh = await listCredential({ url: url("/x"), issuer: s.issuer });
    (tampered.credentialSubject as Record<string, unknown>).encodedList =
      (fresh.credentialSubject as Record<string, unknown>).encodedList;
    s.host.serveJson("/tampered", tampered);
    s.host.serveJson(
      "/purpose",
      await listCredential({ url: url("/purpose"), issuer: s.issuer, purpose: "suspension" }),
    );
    s.host.serveJson(
      "/short",
      await listCredential({ url: url("/short"), issuer: s.issuer, length: 1024 }),
    );
    const cases: [string, RegExp][] = [
      ["/forged", /does not verify/],
      ["/mallory", /Issuers of the status list credential and verifiable credential do not match/],
      ["/tampered", /does not verify/],
      ["/purpose", /status purpose "suspension"/],
      ["/short", /fewer than the 131072/],
      ["/missing", /its host answered 404/],
    ];
    for (const [path, why] of cases) {
      const status = await s.statusOf([entry(url(path), 1)]);
      assert.equal(status.state, "unknown", path);
      assert.match(status.message ?? "", why, path);
    }
  } finally {
    await s.close();
  }
});

Deno.test("Bitstring Status List: kept until its ttl (milliseconds), never past expirationDate; host down gives unknown", async () => {
  const s = await setup();
  try {
    const url = s.host.url("/list");
    const serve = async (set: number[], extra: { ttl?: number; expirationDate?: string }) =>
      s.host.serveJson("/list", await listCredential({ url, issuer: s.issuer, set, ...extra }));
    await serve([], { ttl: 10_000 });
    assert.equal((await s.statusOf([entry(url, 5)])).state, "valid");
    await serve([5], { ttl: 10_000 });
    s.advance(9_000);
    assert.equal((await s.statusOf([entry(url, 5)])).state, "valid", "kept within its ttl");
    s.advance(2_000);
    assert.equal((await s.statusOf([entry(url, 5)])).state, "revoked", "fetched again after it");
    assert.equal(s.host.hits(), 2);

    s.advance(11_000);
    await serve([], {
      ttl: 3_600_000,
      expirationDate: new Date(T0 + 22_000 + 5_000).toISOString(),
    });
    assert.equal((await s.statusOf([entry(url, 5)])).state, "valid");
    s.advance(6_000);
    await serve([5], { ttl: 3_600_000 });
    assert.equal((await s.statusOf([entry(url, 5)])).state, "revoked", "never past expirationDate");
    assert.equal(s.host.hits(), 4);

    s.advance(3_600_000);
    await s.host.down();
    const down = await s.statusOf([entry(url, 5)]);
    assert.equal(down.state, "unknown");
    assert.match(down.message ?? "", /could not be fetched/);
  } finally {
    await s.close();
  }
});

Deno.test("a list that cannot be fetched is asked once a minute, not once for every credential that names it", async () => {
  const s = await setup();
  try {
    const gone = s.host.url("/gone");
    for (const i of [1, 2, 3]) {
      const status = await s.statusOf([entry(gone, i)]);
      assert.equal(status.state, "unknown");
      assert.match(status.message ?? "", /its host answered 404/);
    }
    assert.equal(s.host.hits(), 1);
    s.advance(61_000);
    await s.statusOf([entry(gone, 1)]);
    assert.equal(s.host.hits(), 2, "asked again a minute later");
  } finally {
    await s.close();
  }
});
