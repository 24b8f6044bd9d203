/**
 * Bitstring Status Lists signed with a `DataIntegrityProof` (how most VC 2.0 lists are signed):
 * a VC 2.0 list credential signed `eddsa-rdfc-2022` and one signed `ecdsa-rdfc-2019` (P-256) by
 * the credential's issuer, served by a real local host, are read: a set bit is `revoked`, a clear
 * one `valid`. A list whose bits changed after signing, or signed by another key for the issuer's
 * DID, is never `valid`; a list past its `validUntil` does not verify.
 */
import assert from "node:assert/strict";
import {
  type DiIssuer,
  ecdsaIssuer,
  eddsaIssuer,
  signDataIntegrity,
} from "../credentials/jsonld/di_keys.ts";
import { entry, statusSetup, unsignedListCredential } from "./lists.ts";

type Json = Record<string, unknown>;

/** A VC 2.0 Bitstring Status List credential at `url` of `issuer`, bits `set` on, signed by `signer`. */
async function diList(
  url: string,
  issuer: DiIssuer,
  opts: { set?: number[]; signer?: DiIssuer; validUntil?: string } = {},
): Promise<Json> {
  const { "@context": _v1, issuanceDate: _date, ...list } = await unsignedListCredential({
    url,
    issuer: issuer.did,
    set: opts.set,
  });
  const credential = {
    "@context": ["https://www.w3.org/ns/credentials/v2"],
    ...list,
    validFrom: "2025-01-01T00:00:00Z",
    ...(opts.validUntil ? { validUntil: opts.validUntil } : {}),
  };
  const signer = opts.signer ?? issuer;
  return await signDataIntegrity(credential, { ...signer, signer: signer.signer });
}

for (
  const [name, make] of [
    ["eddsa-rdfc-2022", () => Promise.resolve(eddsaIssuer())],
    ["ecdsa-rdfc-2019 P-256", () => ecdsaIssuer("P-256")],
  ] as const
) {
  Deno.test(`a Bitstring Status List signed ${name} is read: a set bit is revoked, a clear one valid`, async () => {
    const s = await statusSetup();
    try {
      const issuer = await make();
      const url = s.host.url("/di-list");
      const list = await diList(url, issuer, { set: [7] });
      assert.equal((list.proof as Json).cryptosuite, issuer.cryptosuite);
      s.host.serveJson("/di-list", list);
      const statusOf = (index: number) =>
        s.ctx.services.status.statusOf({
          format: "ldp_vc",
          credential: { issuer: issuer.did, credentialStatus: entry(url, index) },
        });
      assert.equal((await statusOf(7)).state, "revoked");
      assert.equal((await statusOf(6)).state, "valid");
      assert.equal(s.host.hits(), 1, "fetched and verified once");
    } finally {
      await s.close();
    }
  });
}

Deno.test("a Data Integrity list changed after signing, signed by another key, or past its validUntil is never valid", async () => {
  const s = await statusSetup();
  try {
    const issuer = await ecdsaIssuer("P-256");
    const mallory = eddsaIssuer();
    const url = (p: string) => s.host.url(p);
    const statusOf = (path: string) =>
      s.ctx.services.status.statusOf({
        format: "ldp_vc",
        credential: { issuer: issuer.did, credentialStatus: entry(url(path), 7) },
      });

    const changed = await diList(url("/changed"), issuer, { set: [7] });
    const revokedBits = ((await diList(url("/changed"), issuer)).credentialSubject as Json)
      .encodedList;
    (changed.credentialSubject as Json).encodedList = revokedBits; // bit 7 cleared after signing
    s.host.serveJson("/changed", changed);
    const tampered = await statusOf("/changed");
    assert.equal(tampered.state, "unknown");
    assert.match(tampered.message ?? "", /does not verify: .*Invalid signature/);

    s.host.serveJson("/forged", await diList(url("/forged"), issuer, { signer: mallory }));
    const forged = await statusOf("/forged");
    assert.equal(forged.state, "unknown");
    assert.match(forged.message ?? "", /does not verify/);

    s.host.serveJson(
      "/old",
      await diList(url("/old"), issuer, { validUntil: "2025-06-01T00:00:00Z" }),
    );
    const old = await statusOf("/old");
    assert.equal(old.state, "unknown");
    assert.match(old.message ?? "", /after "validUntil"/);
  } finally {
    await s.close();
  }
});
