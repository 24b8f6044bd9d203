/**
 * SD-JWT VC status through the IETF Token Status List, against a real local list host: values 0,
 * 1, 2 and others; lists signed by another key, for another uri, expired or undecodable are never
 * `valid`; a host that is down gives `unknown`; a fetched list is used until its `ttl` (seconds)
 * and never past its `exp` (an injected clock).
 */
import assert from "node:assert/strict";
import { sdJwtWithStatus, statusSetup, T0, testIssuer, tokenListJwt } from "./lists.ts";

async function setup() {
  const s = await statusSetup();
  return {
    ...s,
    statusOf: async (idx: number, uri = s.host.url("/lists/1")) =>
      await s.ctx.services.status.statusOf({
        format: "dc+sd-jwt",
        compact: await sdJwtWithStatus(s.issuer, { status_list: { idx, uri } }),
      }),
  };
}

Deno.test("Token Status List: 0 valid, 1 revoked, 2 suspended, 3 unknown; no status entry is unknown", async () => {
  const s = await setup();
  try {
    s.host.serveJwt(
      "/lists/1",
      await tokenListJwt({
        uri: s.host.url("/lists/1"),
        statuses: { 1: 1, 2: 2, 3: 3 },
        signer: s.issuer,
        iat: s.nowS(),
      }),
    );
    assert.equal((await s.statusOf(0)).state, "valid");
    assert.equal((await s.statusOf(1)).state, "revoked");
    assert.equal((await s.statusOf(2)).state, "suspended");
    const other = await s.statusOf(3);
    assert.equal(other.state, "unknown");
    assert.match(other.message ?? "", /status value 3/);
    const outside = await s.statusOf(5000);
    assert.equal(outside.state, "unknown");
    assert.match(outside.message ?? "", /index 5000 is outside/);
    assert.equal(s.host.hits(), 1, "one fetch, then the kept list");
    const none = await s.ctx.services.status.statusOf({
      format: "dc+sd-jwt",
      compact: await sdJwtWithStatus(s.issuer),
    });
    assert.deepEqual(none, {
      state: "unknown",
      checkedAt: new Date(T0).toISOString(),
      message: "The credential has no status entry (status.status_list).",
    });
  } finally {
    await s.close();
  }
});

Deno.test("Token Status List: a list signed by another key, for another uri, expired, of another typ or undecodable is never valid", async () => {
  const s = await setup();
  try {
    const mallory = await testIssuer();
    const uri = (p: string) => s.host.url(p);
    const cases: [string, string, RegExp][] = [
      [
        "/other-key",
        await tokenListJwt({
          uri: uri("/other-key"),
          statuses: {},
          signer: mallory,
          kid: s.issuer.kid,
        }),
        /not signed by the issuer/,
      ],
      [
        "/other-did",
        await tokenListJwt({
          uri: uri("/other-did"),
          statuses: {},
          signer: mallory,
          kid: `${mallory.did}${mallory.kid}`,
        }),
        /is not a key of/,
      ],
      [
        "/sub",
        await tokenListJwt({
          uri: uri("/sub"),
          sub: uri("/elsewhere"),
          statuses: {},
          signer: s.issuer,
        }),
        /another list as its subject/,
      ],
      [
        "/expired",
        await tokenListJwt({
          uri: uri("/expired"),
          statuses: {},
          signer: s.issuer,
          exp: s.nowS() - 10,
        }),
        /has expired/,
      ],
      [
        "/typ",
        await tokenListJwt({ uri: uri("/typ"), statuses: {}, signer: s.issuer, typ: "JWT" }),
        /typ "JWT"/,
      ],
    ];
    for (const [path, jwt, why] of cases) {
      s.host.serveJwt(path, jwt);
      const status = await s.statusOf(0, uri(path));
      assert.equal(status.state, "unknown", path);
      assert.match(status.message ?? "", why, path);
    }
    // A compression bomb: a tiny lst that inflates past the cap is refused before decoding.
    const zeros = new Uint8Array(20 * 1024 * 1024);
    const bomb = new Uint8Array(
      await new Response(new Blob([zeros]).stream().pipeThrough(new CompressionStream("deflate")))
        .arrayBuffer(),
    );
    const lst = btoa(String.fromCharCode(...bomb)).replace(/\+/g, "-").replace(/\//g, "_")
      .replace(/=+$/, "");
    const { SignJWT } = await import("jose");
    const bombJwt = await new SignJWT({
      sub: uri("/bomb"),
      iat: s.nowS(),
      status_list: { bits: 1, lst },
    }).setProtectedHeader({ alg: "EdDSA", typ: "statuslist+jwt", kid: s.issuer.kid })
      .sign(s.issuer.jwtKey);
    s.host.serveJwt("/bomb", bombJwt);
    const bombed = await s.statusOf(0, uri("/bomb"));
    assert.equal(bombed.state, "unknown");
    assert.match(bombed.message ?? "", /decompresses to more than/);
  } finally {
    await s.close();
  }
});

Deno.test("Token Status List: kept until its ttl (seconds), never past exp; a host that is down gives unknown", async () => {
  const s = await setup();
  try {
    const uri = s.host.url("/lists/1");
    const serve = async (statuses: Record<number, number>, extra: { ttl?: number; exp?: number }) =>
      s.host.serveJwt(
        "/lists/1",
        await tokenListJwt({ uri, statuses, signer: s.issuer, iat: s.nowS(), ...extra }),
      );
    await serve({}, { ttl: 60 });
    assert.equal((await s.statusOf(4)).state, "valid");
    await serve({ 4: 1 }, { ttl: 60 });
    s.advance(59_000);
    assert.equal((await s.statusOf(4)).state, "valid", "within its ttl the kept list is used");
    assert.equal(s.host.hits(), 1);
    s.advance(2_000);
    assert.equal((await s.statusOf(4)).state, "revoked", "past its ttl it is fetched again");
    assert.equal(s.host.hits(), 2);

    // exp before ttl: exp wins.
    s.advance(61_000);
    await serve({ 4: 0 }, { ttl: 3600, exp: s.nowS() + 30 });
    assert.equal((await s.statusOf(4)).state, "valid");
    assert.equal(s.host.hits(), 3);
    s.advance(31_000);
    await serve({ 4: 2 }, { ttl: 3600 });
    assert.equal((await s.statusOf(4)).state, "suspended", "never used past its exp");
    assert.equal(s.host.hits(), 4);

    // No ttl: the DID cache TTL (300 s here).
    s.advance(3_601_000);
    await serve({ 4: 0 }, {});
    assert.equal((await s.statusOf(4)).state, "valid");
    s.advance(299_000);
    await serve({ 4: 1 }, {});
    assert.equal((await s.statusOf(4)).state, "valid");
    s.advance(2_000);
    assert.equal((await s.statusOf(4)).state, "revoked");

    s.advance(3_600_000);
    await s.host.down();
    const down = await s.statusOf(4);
    assert.equal(down.state, "unknown");
    assert.match(down.message ?? "", /could not be fetched/);
  } finally {
    await s.close();
  }
});

Deno.test("Token Status List: a list that cannot be fetched is asked once a minute, not once per credential", async () => {
  const s = await setup();
  try {
    const gone = s.host.url("/gone");
    for (const idx of [1, 2, 3]) {
      const status = await s.statusOf(idx, gone);
      assert.equal(status.state, "unknown");
      assert.match(status.message ?? "", /its host answered 404/);
    }
    assert.equal(s.host.hits(), 1);
    s.advance(61_000);
    await s.statusOf(1, gone);
    assert.equal(s.host.hits(), 2, "asked again a minute later");
  } finally {
    await s.close();
  }
});
