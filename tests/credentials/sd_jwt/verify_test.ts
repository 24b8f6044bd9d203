/**
 * SD-JWT VC verification rules on credentials made here with real keys (jose): the issuer is a
 * did:key resolved by the service's own resolver; disclosures are hashed per the SD-JWT spec.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { sha256 } from "@noble/hashes/sha2.js";
import { b64u, bytesToVerkey, verkeyToDidKey } from "../../../src/crypto/mod.ts";
import { CredentialRejected, verifySdJwtVc } from "../../../src/credentials/sd_jwt/verify.ts";
import { createTestContext } from "../../support/context.ts";

const enc = new TextEncoder();
const disclose = (name: string | null, value: unknown) => {
  const salt = b64u(crypto.getRandomValues(new Uint8Array(16)));
  const text = b64u(
    enc.encode(JSON.stringify(name === null ? [salt, value] : [salt, name, value])),
  );
  return { text, digest: b64u(sha256(enc.encode(text))) };
};

const issuerKeys = await jose.generateKeyPair("EdDSA", { extractable: true });
const issuerJwk = await jose.exportJWK(issuerKeys.publicKey);
const issuerDid = verkeyToDidKey(bytesToVerkey(jose.base64url.decode(issuerJwk.x!)));
const holderKeys = await jose.generateKeyPair("EdDSA", { extractable: true });
const holderJwk = await jose.exportJWK(holderKeys.publicKey);
const holderDid = verkeyToDidKey(bytesToVerkey(jose.base64url.decode(holderJwk.x!)));
const holderKid = `${holderDid}#${holderDid.slice(8)}`;

async function issue(opts: {
  payload?: Record<string, unknown>;
  header?: Record<string, unknown>;
  signWith?: CryptoKey;
  /** More top-level claims, made disclosable. */
  disclosed?: [string, unknown][];
  /** More claims of `address`, made disclosable there. */
  nested?: [string, unknown][];
} = {}) {
  const given = disclose("given_name", "Alice");
  const street = disclose("street_address", "Main St 1");
  const more = (opts.disclosed ?? []).map(([k, v]) => disclose(k, v));
  const inner = (opts.nested ?? []).map(([k, v]) => disclose(k, v));
  const address = { _sd: [street.digest, ...inner.map((d) => d.digest)], country: "NL" };
  const addr = disclose("address", address);
  const nat = disclose(null, "NL");
  const payload = {
    iss: issuerDid,
    vct: "https://example.org/vct/identity",
    iat: Math.floor(Date.now() / 1000),
    cnf: { kid: holderKid },
    family_name: "Doe",
    nationalities: [{ "...": nat.digest }, "DE"],
    _sd: [given.digest, addr.digest, ...more.map((d) => d.digest)],
    _sd_alg: "sha-256",
    ...opts.payload,
  };
  const jwt = await new jose.CompactSign(enc.encode(JSON.stringify(payload)))
    .setProtectedHeader({
      alg: "EdDSA",
      typ: "dc+sd-jwt",
      kid: `#${issuerDid.slice(8)}`,
      ...opts.header,
    })
    .sign(opts.signWith ?? issuerKeys.privateKey);
  return {
    compact: [
      jwt,
      given.text,
      street.text,
      addr.text,
      nat.text,
      ...[...more, ...inner].map((d) => d.text),
      "",
    ]
      .join("~"),
    given,
    street,
  };
}

const ctx = await createTestContext();
const base = {
  resolveDid: async (did: string) => {
    const r = await ctx.services.resolver.resolve(did);
    return (r.didDocument as Record<string, unknown> | null) ??
      String(r.didResolutionMetadata.error);
  },
  getJson: () => Promise.resolve(null),
  now: Date.now(),
  expectedVct: "https://example.org/vct/identity",
  holderKid,
  holderJwk,
};

async function rejected(compact: string, rule: RegExp, extra: Partial<typeof base> = {}) {
  await assert.rejects(() => verifySdJwtVc(compact, { ...base, ...extra }), (err: unknown) => {
    assert.ok(err instanceof CredentialRejected, String(err));
    assert.match(err.message, rule);
    return true;
  });
}

Deno.test("a valid SD-JWT VC: claims with every disclosure in place, nested and in arrays", async () => {
  const { compact } = await issue();
  const v = await verifySdJwtVc(compact, base);
  assert.equal(v.issuer, issuerDid);
  assert.deepEqual(v.claims, {
    iss: issuerDid,
    vct: "https://example.org/vct/identity",
    iat: v.claims.iat,
    cnf: { kid: holderKid },
    family_name: "Doe",
    given_name: "Alice",
    nationalities: ["NL", "DE"],
    address: { country: "NL", street_address: "Main St 1" },
  });
  // An absolute kid works as well as a relative one.
  const abs = await issue({ header: { kid: `${issuerDid}#${issuerDid.slice(8)}` } });
  await verifySdJwtVc(abs.compact, base);
});

Deno.test("tampered, misbound or mistyped SD-JWT VCs are rejected, naming the rule", async () => {
  const { compact, given } = await issue();
  const flipped = compact.replace(given.text, disclose("given_name", "Mallory").text);
  await rejected(flipped, /not referenced/);
  const [h, p, s] = compact.split("~")[0]!.split(".");
  const badSig = compact.replace(
    `${h}.${p}.${s}`,
    `${h}.${p}.${s!.startsWith("A") ? "B" : "A"}${s!.slice(1)}`,
  );
  await rejected(badSig, /signature/);
  const other = await jose.generateKeyPair("EdDSA");
  await rejected((await issue({ signWith: other.privateKey })).compact, /signature/);
  await rejected(
    (await issue({
      payload: { cnf: { kid: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK" } },
    })).compact,
    /cnf\.kid/,
  );
  await rejected((await issue({ payload: { cnf: undefined } })).compact, /no cnf/);
  await rejected((await issue({ payload: { vct: "https://example.org/other" } })).compact, /vct/);
  await rejected(
    (await issue({ payload: { exp: Math.floor(Date.now() / 1000) - 3600 } })).compact,
    /expired/,
  );
  await rejected(
    (await issue({ payload: { nbf: Math.floor(Date.now() / 1000) + 3600 } })).compact,
    /nbf/,
  );
  await rejected(
    (await issue({ payload: { iat: Math.floor(Date.now() / 1000) + 3600 } })).compact,
    /future/,
  );
  await rejected((await issue({ header: { typ: "JWT" } })).compact, /typ/);
  await rejected(
    (await issue({ header: { kid: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#x" } }))
      .compact,
    /not a key of the issuer/,
  );
  await rejected((await issue({ payload: { _sd_alg: "sha-512" } })).compact, /_sd_alg/);
  await rejected(compact.split("~")[0]!, /not an SD-JWT/);
  const extra = disclose("nickname", "Al");
  await rejected(compact + extra.text + "~", /not referenced/);
});

Deno.test("SD-JWT VC strictness: iss, vct, cnf, iat, nbf, exp, status as disclosures are refused; nested namesakes are not", async () => {
  const nowS = Math.floor(Date.now() / 1000);
  const values: Record<string, unknown> = {
    iss: issuerDid,
    vct: "https://example.org/vct/identity",
    cnf: { kid: holderKid },
    iat: nowS,
    nbf: nowS - 10,
    exp: nowS + 3600,
    status: { status_list: { idx: 0, uri: "https://issuer.example/status/1" } },
  };
  for (const [name, value] of Object.entries(values)) {
    // Only as a disclosure: the signed payload lacks it (where the rest allows).
    const payload = ["iss", "vct", "cnf"].includes(name) ? {} : { [name]: undefined };
    const { compact } = await issue({ payload, disclosed: [[name, value]] });
    await rejected(
      compact,
      new RegExp(
        `^${name} is selectively disclosable; SD-JWT VC requires it in the signed payload`,
      ),
    );
  }
  // A claim "status" (or "exp") inside another claim is the issuer's own: disclosable.
  const nested = await issue({ nested: [["status", "married"], ["exp", "years"]] });
  const v = await verifySdJwtVc(nested.compact, base);
  assert.deepEqual((v.claims.address as Record<string, unknown>).status, "married");
});

Deno.test("a cnf.jwk binding is compared by thumbprint", async () => {
  const { compact } = await issue({ payload: { cnf: { jwk: holderJwk } } });
  await verifySdJwtVc(compact, base);
  const other = await jose.exportJWK(
    (await jose.generateKeyPair("EdDSA", { extractable: true })).publicKey,
  );
  await rejected((await issue({ payload: { cnf: { jwk: other } } })).compact, /cnf\.jwk/);
});

globalThis.addEventListener("unload", () => void ctx.close());
