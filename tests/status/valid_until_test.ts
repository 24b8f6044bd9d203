/**
 * A VCDM 2.0 status list credential is used until its `ttl` and never past its `validUntil`
 * (CONTRACT "Credentials from real issuers: status and contexts"), as a VCDM 1.1 one is never used
 * past its `expirationDate` (`bitstring_test.ts`): a real local list host, the list signed by the
 * test's issuer, the service on an injected clock.
 */
import assert from "node:assert/strict";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import { entry, statusSetup, T0, type TestIssuer, unsignedListCredential } from "./lists.ts";

/** A Bitstring Status List credential in the VCDM 2.0 shape (`validFrom`, `validUntil`). */
async function v2List(
  o: { url: string; issuer: TestIssuer; set: number[]; ttl: number; validUntil?: string },
) {
  const { issuanceDate: _, ...v1 } = await unsignedListCredential({
    url: o.url,
    issuer: o.issuer.did,
    set: o.set,
    ttl: o.ttl,
  });
  return await signCredential({
    ...v1,
    "@context": ["https://www.w3.org/ns/credentials/v2"],
    validFrom: "2024-01-01T00:00:00Z",
    ...(o.validUntil ? { validUntil: o.validUntil } : {}),
  }, {
    keyPair: { ...o.issuer.keyPair, controller: o.issuer.did },
    suite: "Ed25519Signature2018",
  });
}

Deno.test("Bitstring Status List (VCDM 2.0): kept within its ttl, never past validUntil", async () => {
  const s = await statusSetup();
  try {
    const url = s.host.url("/v2list");
    const statusOf = () =>
      s.ctx.services.status.statusOf({
        format: "ldp_vc",
        credential: { issuer: s.issuer.did, credentialStatus: entry(url, 5) },
      });
    const serve = async (set: number[], validUntil?: string) =>
      s.host.serveJson(
        "/v2list",
        await v2List({ url, issuer: s.issuer, set, ttl: 3_600_000, validUntil }),
      );

    // No validUntil: the ttl (an hour) keeps the list.
    await serve([]);
    assert.equal((await statusOf()).state, "valid");
    await serve([5]);
    s.advance(60_000);
    assert.equal((await statusOf()).state, "valid", "kept within its ttl");
    assert.equal(s.host.hits(), 1);

    // validUntil 5 s from now: the kept list is not used past it, whatever its ttl says.
    s.advance(3_600_000);
    await serve([], new Date(T0 + 3_660_000 + 5_000).toISOString());
    assert.equal((await statusOf()).state, "valid");
    assert.equal(s.host.hits(), 2);
    await serve([5]);
    s.advance(4_000);
    assert.equal((await statusOf()).state, "valid", "before validUntil the kept list is used");
    assert.equal(s.host.hits(), 2);
    s.advance(2_000);
    assert.equal((await statusOf()).state, "revoked", "past validUntil it is fetched again");
    assert.equal(s.host.hits(), 3);
  } finally {
    await s.close();
  }
});
