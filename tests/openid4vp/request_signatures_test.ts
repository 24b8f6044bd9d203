/**
 * A signed OpenID4VP request is read only when its signature is the client's (CONTRACT "OpenID4VP
 * holder"): a `decentralized_identifier:` request re-signed by another key, tampered after
 * signing, expired or issued in the future, and an `x509_san_dns:` request whose signature is not its `x5c` leaf's,
 * are each 400 naming the rule, with nothing recorded and nothing sent to the verifier; the same
 * requests signed as they should be are recorded. The verifier is a real local HTTP server
 * (`local_verifier.ts`) with keys the test makes.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import {
  type LocalVerifier,
  makeChain,
  type RequestOptions,
  startLocalVerifier,
} from "./local_verifier.ts";
import { storeSdJwt } from "./stored_credentials.ts";

const ORG = "org-sig";
type Json = Record<string, unknown>;

async function withVerifier(
  host: string,
  env: Record<string, string>,
  fn: (
    s: {
      ctx: TestContext;
      verifier: LocalVerifier;
      receive: (o: RequestOptions) => Promise<Response>;
      token: string;
    },
  ) => Promise<void>,
) {
  const ctx = await createTestContext({ env });
  const verifier = await startLocalVerifier(host);
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    await storeSdJwt(ctx, ORG, { given_name: "Erika" });
    const token = await ctx.token({ [ORG]: ["holder"] });
    const receive = async (o: RequestOptions) =>
      await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
        token,
        body: { request: (await verifier.request(o)).link },
      });
    await fn({ ctx, verifier, receive, token });
  } finally {
    await verifier.close();
    await ctx.close();
  }
}

/** 400 naming `rule`; nothing recorded beyond `kept` records, nothing posted to the verifier. */
async function refused(
  s: { ctx: TestContext; verifier: LocalVerifier; token: string },
  res: Response,
  rule: string,
  kept: number,
  what: string,
): Promise<void> {
  const body = await expectJson(res, 400);
  assert.equal((body.details as Json[])[0]?.path, rule, `${what}: ${body.message}`);
  const list = await expectJson(
    await s.ctx.call("GET", `/orgs/${ORG}/openid4vp/requests`, { token: s.token }),
    200,
  );
  assert.equal((list.data as Json[]).length, kept, `${what}: nothing recorded`);
  assert.equal(s.verifier.fetched.filter((f) => f.method === "POST").length, 0, what);
}

const otherEd25519 = await jose.generateKeyPair("EdDSA", { extractable: true });

/** The compact JWS with its payload replaced by `payload` and its signature kept. */
function tamper(jwt: string, change: (p: Json) => Json): string {
  const [h, p, sig] = jwt.split(".");
  const payload = JSON.parse(new TextDecoder().decode(jose.base64url.decode(p!)));
  return `${h}.${jose.base64url.encode(JSON.stringify(change(payload)))}.${sig}`;
}

Deno.test("OID4VP decentralized_identifier: a request re-signed by another key, tampered, expired or issued in the future is 400 naming the rule; nothing recorded or sent", async () => {
  await withVerifier("127.0.0.1", {}, async (s) => {
    // Signed as it should be: recorded.
    assert.equal(
      (await expectJson(await s.receive({ signer: "did" }), 201)).state,
      "request-received",
    );

    // The same header (the verifier's kid), another key's signature.
    const otherKey = await s.receive({
      signer: "did",
      forge: ({ header, payload }) =>
        new jose.SignJWT(payload).setProtectedHeader(header as jose.JWTHeaderParameters)
          .sign(otherEd25519.privateKey),
    });
    await refused(s, otherKey, "request_signature", 1, "signed by another key");

    // Signed by the verifier, then changed: a nonce of the attacker's choosing.
    const tampered = await s.receive({
      signer: "did",
      forge: async ({ header, payload, sign }) =>
        tamper(await sign(header, payload), (p) => ({ ...p, nonce: "chosen-by-an-attacker" })),
    });
    await refused(s, tampered, "request_signature", 1, "tampered");

    // Signed by the verifier, but expired an hour ago (beyond the 60 s skew).
    const now = Math.floor(Date.now() / 1000);
    const expired = await s.receive({
      signer: "did",
      forge: ({ header, payload, sign }) =>
        sign(header, { ...payload, iat: now - 7200, exp: now - 3600 }),
    });
    await refused(s, expired, "request_expired", 1, "expired");
    // Issued an hour from now: not a request of this moment either.
    const future = await s.receive({
      signer: "did",
      forge: ({ header, payload, sign }) =>
        sign(header, { ...payload, iat: now + 3600, exp: now + 7200 }),
    });
    await refused(s, future, "request_expired", 1, "issued in the future");
  });
});

Deno.test("OID4VP x509_san_dns: a request whose signature is not its x5c leaf's is 400; the leaf's own signature is accepted", async () => {
  const chain = await makeChain("localhost");
  const stranger = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  ) as CryptoKeyPair;
  await withVerifier("localhost", { OID4VP_X509_TRUST_ANCHORS: chain.caPem }, async (s) => {
    const ok = await s.receive({ signer: "x509", chain });
    assert.equal((await expectJson(ok, 201)).state, "request-received");
    // The chain is the trusted one, for the right name: only the signature is another key's.
    const forged = await s.receive({
      signer: "x509",
      chain,
      forge: ({ header, payload }) =>
        new jose.SignJWT(payload).setProtectedHeader(header as jose.JWTHeaderParameters)
          .sign(stranger.privateKey),
    });
    await refused(s, forged, "request_signature", 1, "x5c leaf did not sign");
  });
});
