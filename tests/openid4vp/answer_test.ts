/**
 * Answering presentation requests, against a verifier made here (a real local HTTP server,
 * `local_verifier.ts`): exactly the requested SD-JWT disclosures with a key binding JWT signed by
 * the org's key, `direct_post.jwt` encrypted to the verifier's key, a JSON-LD presentation that
 * verifies, the selection and DCQL credential sets, revoked credentials never offered, and what
 * the verifier answers (a refusal → failed, a server error → 502 with the request still open).
 */
import assert from "node:assert/strict";
import { decodeSdJwtSync } from "@sd-jwt/decode";
import { sha256 } from "@noble/hashes/sha2.js";
import * as jose from "jose";
import { b64u, didKeyToVerkey, verkeyToBytes } from "../../src/crypto/mod.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import { assertVpVerifies, startLocalVerifier } from "./local_verifier.ts";
import { orgDid, storeSdJwt, storeW3c, VCT } from "./stored_credentials.ts";

const ORG = "org-vp";
type Json = Record<string, unknown>;
const CLAIMS = {
  given_name: "Erika",
  family_name: "Mustermann",
  nationalities: ["DE", "FR"],
  address: { street_address: "Heidestrasse 17", locality: "Koeln" },
};

async function setup() {
  const ctx = await createTestContext();
  await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
  const token = await ctx.token({ [ORG]: ["member"] });
  const verifier = await startLocalVerifier();
  return { ctx, token, verifier };
}

const call = (ctx: TestContext, token: string, path: string, body?: Json) =>
  ctx.call("POST", `/orgs/${ORG}/openid4vp/${path}`, { token, body });

/** Disclosed claim names of an SD-JWT presentation (array elements as `[value]`). */
function disclosed(presentation: string): string[] {
  const d = decodeSdJwtSync(presentation, (s: string) => sha256(new TextEncoder().encode(s)));
  return d.disclosures.map((x) => x.key ?? `[${x.value}]`).sort();
}

Deno.test("OID4VP accept: exactly the requested disclosures (nested, array wildcard with values) and a key binding JWT signed by the cnf key", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    const credentialId = await storeSdJwt(ctx, ORG, CLAIMS);
    const req = await verifier.request({
      dcql: {
        credentials: [{
          id: "pid",
          format: "dc+sd-jwt",
          meta: { vct_values: [VCT] },
          claims: [
            { path: ["address", "locality"] },
            { path: ["nationalities", null], values: ["FR"] },
          ],
        }],
      },
    });
    const rec = await expectJson(await call(ctx, token, "requests", { request: req.link }), 201);
    assert.deepEqual((rec.queries as Json[])[0], {
      id: "pid",
      required: true,
      matches: [{
        credentialId,
        format: "dc+sd-jwt",
        disclosedClaims: [["address", "locality"], ["nationalities", 1]],
      }],
    });
    assert.deepEqual(rec.verifier, {
      clientId: req.clientId,
      prefix: "redirect_uri",
      name: "Local Test Verifier",
    });
    const done = await expectJson(await call(ctx, token, `requests/${rec.id}/accept`), 200);
    assert.equal(done.state, "done");
    const [sent] = verifier.received(req.id);
    assert.equal(sent!.form.state, `state-${req.id}`);
    const vpToken = JSON.parse(sent!.form.vp_token!) as Record<string, string[]>;
    const presentation = vpToken.pid![0]!;
    assert.deepEqual(disclosed(presentation), ["[FR]", "address", "locality", "nationalities"]);

    const kbJwt = presentation.slice(presentation.lastIndexOf("~") + 1);
    const { kid } = await orgDid(ctx, ORG);
    const orgKey = await jose.importJWK({
      kty: "OKP",
      crv: "Ed25519",
      x: b64u(verkeyToBytes(didKeyToVerkey(kid.split("#")[0]!))),
    }, "EdDSA");
    const { payload, protectedHeader } = await jose.jwtVerify(kbJwt, orgKey, {
      audience: req.clientId,
      typ: "kb+jwt",
    });
    assert.equal(payload.nonce, req.nonce);
    const signedPart = presentation.slice(0, presentation.lastIndexOf("~") + 1);
    assert.equal(payload.sd_hash, b64u(sha256(new TextEncoder().encode(signedPart))));
    assert.equal(protectedHeader.alg, "EdDSA");
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP accept: direct_post.jwt is a JWE to the verifier's key (ECDH-ES, its enc, apv the nonce) holding vp_token and state", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    await storeSdJwt(ctx, ORG, CLAIMS);
    const req = await verifier.request({ signer: "did", responseMode: "direct_post.jwt" });
    const rec = await expectJson(await call(ctx, token, "requests", { request: req.link }), 201);
    assert.equal(rec.responseMode, "direct_post.jwt");
    assert.equal((rec.verifier as Json).prefix, "decentralized_identifier");
    await expectJson(await call(ctx, token, `requests/${rec.id}/accept`), 200);
    const [sent] = verifier.received(req.id);
    assert.deepEqual(Object.keys(sent!.form), ["response"]);
    const header = jose.decodeProtectedHeader(sent!.form.response!);
    assert.equal(header.alg, "ECDH-ES");
    assert.equal(header.enc, "A256GCM");
    assert.equal(header.kid, "e1");
    assert.equal(new TextDecoder().decode(jose.base64url.decode(header.apv as string)), req.nonce);
    const payload = sent!.decrypted!;
    assert.equal(payload.state, `state-${req.id}`);
    const p = (payload.vp_token as Record<string, string[]>).pid![0]!;
    assert.deepEqual(disclosed(p), ["given_name"]);
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP accept: a JSON-LD credential is presented whole in a VP signed by the org's key (challenge = nonce, domain = client id) that verifies", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    const id = await storeW3c(ctx, ORG, { name: "Erika", degree: "MSc" });
    const req = await verifier.request({
      signer: "did",
      dcql: {
        credentials: [{
          id: "degree",
          format: "ldp_vc",
          meta: { type_values: [["VerifiableCredential", "UniversityDegreeCredential"]] },
          claims: [{ path: ["credentialSubject", "degree"] }],
        }],
      },
    });
    const rec = await expectJson(await call(ctx, token, "requests", { request: req.link }), 201);
    const { did } = await orgDid(ctx, ORG);
    assert.deepEqual((rec.queries as Json[])[0], {
      id: "degree",
      required: true,
      matches: [{
        credentialId: id,
        format: "ldp_vc",
        disclosedClaims: [
          ["credentialSubject", "id"],
          ["credentialSubject", "name"],
          ["credentialSubject", "degree"],
        ],
      }],
    });
    await expectJson(await call(ctx, token, `requests/${rec.id}/accept`), 200);
    const vp = (JSON.parse(verifier.received(req.id)[0]!.form.vp_token!) as Record<string, Json[]>)
      .degree![0]!;
    assert.equal(vp.holder, did);
    await assertVpVerifies(vp, {
      challenge: req.nonce,
      domain: req.clientId,
      resolveDid: async (d) => (await ctx.services.resolver.resolve(d)).didDocument as never,
    });
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP accept: selection picks the credential, credential_sets their first answerable option; a wrong selection is 400/409 and nothing is sent; revoked credentials are never offered", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    const older = await storeSdJwt(ctx, ORG, CLAIMS, { createdAt: "2020-01-01T00:00:00.000Z" });
    const newer = await storeSdJwt(ctx, ORG, CLAIMS);
    await storeSdJwt(ctx, ORG, CLAIMS, { status: { state: "revoked" } });
    const req = await verifier.request({
      dcql: {
        credentials: [
          { id: "a", format: "dc+sd-jwt", meta: { vct_values: ["urn:none"] } },
          {
            id: "b",
            format: "vc+sd-jwt",
            meta: { vct_values: [VCT] },
            claims: [{ path: ["family_name"] }],
          },
        ],
        credential_sets: [{ options: [["a"], ["b"]] }],
      },
    });
    const rec = await expectJson(await call(ctx, token, "requests", { request: req.link }), 201);
    const b = (rec.queries as { id: string; matches: Json[] }[]).find((q) => q.id === "b")!;
    assert.deepEqual(
      b.matches.map((m) => m.credentialId),
      [newer, older],
      "newest first, no revoked",
    );

    const unknown = await expectJson(
      await call(ctx, token, `requests/${rec.id}/accept`, { selection: { c: older } }),
      400,
    );
    assert.match(String(unknown.message), /"c"/);
    await expectJson(
      await call(ctx, token, `requests/${rec.id}/accept`, { selection: { a: older } }),
      409,
    );
    assert.equal(verifier.received(req.id).length, 0, "nothing sent");

    const done = await expectJson(
      await call(ctx, token, `requests/${rec.id}/accept`, { selection: { b: older } }),
      200,
    );
    assert.deepEqual(done.presented, [{ queryId: "b", credentialId: older }]);
    const vpToken = JSON.parse(verifier.received(req.id)[0]!.form.vp_token!);
    assert.deepEqual(Object.keys(vpToken), ["b"]);

    // Revoked after the request was received: checked again before presenting, and skipped.
    const r2 = await verifier.request();
    const rec2 = await expectJson(await call(ctx, token, "requests", { request: r2.link }), 201);
    assert.deepEqual(
      (rec2.queries as { matches: Json[] }[])[0]!.matches.map((m) => m.credentialId),
      [newer, older],
    );
    const op = ctx.kv.atomic();
    ctx.services.status.record(op, {
      orgId: ORG,
      id: newer,
      subject: { format: "dc+sd-jwt", compact: "unused~" },
      status: { state: "revoked", checkedAt: new Date().toISOString() },
    });
    assert.ok((await op.commit()).ok);
    const done2 = await expectJson(await call(ctx, token, `requests/${rec2.id}/accept`), 200);
    assert.deepEqual(done2.presented, [{ queryId: "pid", credentialId: older }]);
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP accept: the verifier's refusal makes the request failed with its error; a server error is 502 and the request stays open; a credential bound to another key is 409", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    await storeSdJwt(ctx, ORG, CLAIMS);
    const r1 = await verifier.request();
    const rec1 = await expectJson(await call(ctx, token, "requests", { request: r1.link }), 201);
    verifier.answerWith(503, { error: "temporarily_unavailable" });
    const down = await expectJson(await call(ctx, token, `requests/${rec1.id}/accept`), 502);
    assert.match(String(down.message), /temporarily_unavailable/);
    verifier.answerWith(400, { error: "invalid_request", error_description: "nonce mismatch" });
    const failed = await expectJson(await call(ctx, token, `requests/${rec1.id}/accept`), 200);
    assert.equal(failed.state, "failed");
    assert.match(String(failed.errorMessage), /invalid_request \(nonce mismatch\)/);
    verifier.answerWith(200, { redirect_uri: "https://verifier.example/done" });

    const other = await jose.generateKeyPair("EdDSA", { extractable: true });
    await storeSdJwt(ctx, "org-vp", { given_name: "X" }, {
      vct: "urn:bound-elsewhere",
      cnf: { jwk: await jose.exportJWK(other.publicKey) },
    });
    const r2 = await verifier.request({
      dcql: {
        credentials: [{
          id: "x",
          format: "dc+sd-jwt",
          meta: { vct_values: ["urn:bound-elsewhere"] },
        }],
      },
    });
    const rec2 = await expectJson(await call(ctx, token, "requests", { request: r2.link }), 201);
    const bound = await expectJson(await call(ctx, token, `requests/${rec2.id}/accept`), 409);
    assert.match(String(bound.message), /bound \(cnf\) to a key/);
    assert.equal(verifier.received(r2.id).length, 0);

    const r3 = await verifier.request();
    const rec3 = await expectJson(await call(ctx, token, "requests", { request: r3.link }), 201);
    const done = await expectJson(await call(ctx, token, `requests/${rec3.id}/accept`), 200);
    assert.equal(done.redirectUri, "https://verifier.example/done");
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP accept: credential query ids that are names of Object.prototype (constructor, toString) are ids like any other", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    const credentialId = await storeSdJwt(ctx, ORG, CLAIMS);
    const asked = { format: "dc+sd-jwt", meta: { vct_values: [VCT] } };
    const r1 = await verifier.request({
      dcql: { credentials: [{ id: "constructor", ...asked, claims: [{ path: ["given_name"] }] }] },
    });
    const rec1 = await expectJson(await call(ctx, token, "requests", { request: r1.link }), 201);
    const done1 = await expectJson(await call(ctx, token, `requests/${rec1.id}/accept`), 200);
    assert.deepEqual(done1.presented, [{ queryId: "constructor", credentialId }]);
    const vp1 = JSON.parse(verifier.received(r1.id)[0]!.form.vp_token!);
    assert.deepEqual(Object.keys(vp1), ["constructor"]);

    // In credential_sets: "toString" has no match, so the set's other option answers.
    const r2 = await verifier.request({
      dcql: {
        credentials: [
          { id: "toString", format: "dc+sd-jwt", meta: { vct_values: ["urn:none"] } },
          { id: "b", ...asked, claims: [{ path: ["family_name"] }] },
        ],
        credential_sets: [{ options: [["toString"], ["b"]] }],
      },
    });
    const rec2 = await expectJson(await call(ctx, token, "requests", { request: r2.link }), 201);
    const done2 = await expectJson(await call(ctx, token, `requests/${rec2.id}/accept`), 200);
    assert.deepEqual(done2.presented, [{ queryId: "b", credentialId }]);
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP decline: the verifier gets error=access_denied with the request's state and no vp_token; the record is declined whatever it answers", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    await storeSdJwt(ctx, ORG, CLAIMS);
    const req = await verifier.request({ signer: "did" });
    const rec = await expectJson(await call(ctx, token, "requests", { request: req.link }), 201);
    verifier.answerWith(400, { error: "invalid_request", error_description: "no vp_token" });
    const declined = await expectJson(await call(ctx, token, `requests/${rec.id}/decline`), 200);
    assert.equal(declined.state, "declined");
    const [sent, ...more] = verifier.received(req.id);
    assert.equal(more.length, 0);
    assert.equal(sent!.form.error, "access_denied");
    assert.equal(sent!.form.state, `state-${req.id}`);
    assert.equal(sent!.form.vp_token, undefined);
    await expectJson(await call(ctx, token, `requests/${rec.id}/accept`), 409);
    assert.equal(verifier.received(req.id).length, 1, "nothing sent after the decline");
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP accept: the agent's private key opened to sign is wiped once the answer is built", async () => {
  const { ctx, token, verifier } = await setup();
  try {
    await storeSdJwt(ctx, ORG, CLAIMS);
    await storeW3c(ctx, ORG, { name: "Erika", degree: "MSc" });
    const wallet = ctx.services.wallet;
    const open = wallet.openKey.bind(wallet);
    const opened: Uint8Array[] = [];
    wallet.openKey = async (orgId, keyId) => {
      const key = await open(orgId, keyId);
      if (key) opened.push(key.secretKey);
      return key;
    };
    const req = await verifier.request({
      dcql: {
        credentials: [
          {
            id: "pid",
            format: "dc+sd-jwt",
            meta: { vct_values: [VCT] },
            claims: [{ path: ["given_name"] }],
          },
          {
            id: "degree",
            format: "ldp_vc",
            meta: { type_values: [["VerifiableCredential", "UniversityDegreeCredential"]] },
          },
        ],
      },
    });
    const rec = await expectJson(await call(ctx, token, "requests", { request: req.link }), 201);
    const done = await expectJson(await call(ctx, token, `requests/${rec.id}/accept`), 200);
    assert.equal(done.state, "done", String(done.errorMessage));
    assert.ok(opened.length > 0, "the agent key was opened");
    for (const secret of opened) assert.ok(secret.every((b) => b === 0), "wiped after use");
  } finally {
    await verifier.close();
    await ctx.close();
  }
});

Deno.test("OID4VP accept: a signed request past its exp is not answered (409, nothing sent) but can still be declined", async () => {
  let clock = Date.now();
  const ctx = await createTestContext({ now: () => clock });
  const verifier = await startLocalVerifier();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    const token = await ctx.token({ [ORG]: ["member"] });
    await storeSdJwt(ctx, ORG, CLAIMS);
    const req = await verifier.request({ signer: "did" });
    const rec = await expectJson(await call(ctx, token, "requests", { request: req.link }), 201);
    assert.ok(rec.expiresAt, "the request object's exp is on the record");
    clock = Date.parse(rec.expiresAt as string) + 120_000;
    const late = await expectJson(await call(ctx, token, `requests/${rec.id}/accept`), 409);
    assert.match(String(late.message), /expired/);
    assert.equal(verifier.received(req.id).length, 0, "nothing sent");
    const declined = await expectJson(await call(ctx, token, `requests/${rec.id}/decline`), 200);
    assert.equal(declined.state, "declined");
  } finally {
    await verifier.close();
    await ctx.close();
  }
});
