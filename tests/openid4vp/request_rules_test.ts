/**
 * The rules that refuse an OpenID4VP request, each naming itself, with nothing recorded and
 * nothing sent; and `x509_san_dns` requests against trust anchors the test makes
 * (`OID4VP_X509_TRUST_ANCHORS`): a chain to a configured anchor is accepted and answered, a chain
 * to another CA, no anchors at all, a certificate for another name or a response_uri on another
 * host are refused. The verifier is a real local HTTP server (`local_verifier.ts`).
 */
import assert from "node:assert/strict";
import { buildServices } from "../../src/compose.ts";
import { ConfigError, parseConfig } from "../../src/config/config.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import {
  type ContextOptions,
  createTestContext,
  expectJson,
  randomSecretsKey,
} from "../support/context.ts";
import { makeChain, type RequestOptions, startLocalVerifier } from "./local_verifier.ts";
import { storeSdJwt } from "./stored_credentials.ts";

const ORG = "org-rules";
type Json = Record<string, unknown>;

async function setup(
  host = "127.0.0.1",
  opts: ContextOptions = {},
  agentEndpoint = "http://127.0.0.1:9/didcomm",
) {
  const ctx = await createTestContext(opts);
  await configureAgent(ctx, ORG, agentEndpoint);
  await storeSdJwt(ctx, ORG, { given_name: "Erika" });
  const token = await ctx.token({ [ORG]: ["holder"] });
  const verifier = await startLocalVerifier(host);
  const receive = (request: string) =>
    ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, { token, body: { request } });
  /** Expects a 400 naming `rule`; nothing recorded, nothing posted to the verifier. */
  const refused = async (request: string, rule: string, what = rule) => {
    const body = await expectJson(await receive(request), 400);
    assert.equal((body.details as Json[])[0]?.path, rule, `${what}: ${body.message}`);
    assert.match(String(body.message), new RegExp(`rule ${rule}\\b`));
    const list = await expectJson(
      await ctx.call("GET", `/orgs/${ORG}/openid4vp/requests`, { token }),
      200,
    );
    assert.deepEqual(list.data, [], `${what}: nothing recorded`);
    return String(body.message);
  };
  const close = async () => {
    await verifier.close();
    await ctx.close();
  };
  return { ctx, token, verifier, receive, refused, close };
}

Deno.test("OID4VP request rules: each refusal names its rule; nothing is recorded or sent", async () => {
  const s = await setup();
  try {
    const link = async (o: RequestOptions) => (await s.verifier.request(o)).link;
    const replace = (l: string, k: string, v: string) => {
      const u = new URL(l);
      u.searchParams.set(k, v);
      return u.href;
    };
    await s.refused("https://example.org/not-a-request", "request_syntax", "no client_id");
    const offer = await s.refused(
      "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fi.example%2Fo",
      "request_syntax",
    );
    assert.match(offer, /credential offer, not a presentation request/);
    await s.refused(replace(await link({}), "client_id", "verifier-7"), "client_id_prefix");
    await s.refused(
      replace(await link({}), "client_id", "x509_hash:abc"),
      "client_id_prefix",
      "x509_hash",
    );
    const signed = await s.verifier.request({ signer: "did" });
    await s.refused(
      replace(signed.link, "client_id", `redirect_uri:${signed.responseUri}`),
      "unsigned_request_required",
    );
    await s.refused(await link({ extra: { response_mode: "fragment" } }), "response_mode");
    // redirect_uri: the client identifier is the response_uri; the other prefixes must sign.
    const other = `${s.verifier.origin}/cb/elsewhere`;
    await s.refused(replace(await link({}), "response_uri", other), "response_uri");
    await s.refused(
      replace(await link({}), "client_id", signed.clientId),
      "signed_request_required",
    );
    // An unsigned request by value is checked as strictly as a signed one: a nonce (to bind the
    // presentations to) and response_type vp_token are required (OpenID4VP 1.0 §5.2, §5.6).
    const noNonce = await s.refused(await link({ extra: { nonce: undefined } }), "request_syntax");
    assert.match(noNonce, /nonce/);
    await s.refused(await link({ extra: { nonce: "" } }), "request_syntax", "empty nonce");
    await s.refused(await link({ extra: { response_type: "code" } }), "response_type");
    // A signed request the library's schema refuses: the rule and the message come from what is
    // wrong (the nonce), not from the request's own text the library quotes.
    const badNonce = await s.refused(
      await link({ signer: "did", extra: { nonce: 42 } }),
      "request_syntax",
      "a number as nonce",
    );
    assert.match(badNonce, /"nonce"/);
    assert.doesNotMatch(badNonce, /with data|dcql_query/);
    await s.refused(
      await link({ extra: { dcql_query: undefined, presentation_definition: { id: "x" } } }),
      "dcql_query",
      "presentation_definition",
    );
    await s.refused(
      await link({ extra: { dcql_query: { credentials: [] } } }),
      "dcql_query",
      "empty DCQL",
    );
    await s.refused(
      await link({
        extra: {
          transaction_data: [
            btoa(JSON.stringify({ type: "payment", credential_ids: ["pid"] }))
              .replace(/=+$/, ""),
          ],
        },
      }),
      "transaction_data",
    );
    await s.refused(
      await link({
        signer: "did",
        responseMode: "direct_post.jwt",
        extra: { client_metadata: {} },
      }),
      "response_encryption",
    );
    // A request object without typ oauth-authz-req+jwt is not processed (OpenID4VP 1.0 §5),
    // signed or not (an unsigned one with it is read: at the end, as it is recorded).
    for (const typ of ["JWT", undefined]) {
      await s.refused(
        await link({ signer: "did", header: { typ } }),
        "request_object",
        `signed, typ ${typ}`,
      );
      await s.refused(
        await link({ unsignedObject: true, header: { typ } }),
        "request_object",
        `unsigned, typ ${typ}`,
      );
    }
    const jwe = "eyJhbGciOiJFQ0RILUVTIn0.a.b.c.d";
    await s.refused(
      `openid4vp://?client_id=${encodeURIComponent(signed.clientId)}&request=${jwe}`,
      "request_uri",
      "encrypted request object",
    );
    await s.refused(
      replace(signed.link, "request_uri", `${s.verifier.origin}/req/999`),
      "request_uri",
      "request object not found",
    );
    assert.equal(s.verifier.fetched.filter((f) => f.method === "POST").length, 0);
    // request_uri_method=post as OpenID4VP 1.0 §5.10 says: Accept application/oauth-authz-req+jwt,
    // wallet_metadata with what this wallet can sign (EdDSA and ES256 key binding JWTs) and, only
    // for a prefix that allows signed request objects, request_object_signing_alg_values_supported.
    const post = await s.verifier.request({ signer: "did", post: true });
    await s.refused(
      replace(post.link, "client_id", `redirect_uri:${post.responseUri}`),
      "unsigned_request_required",
      "redirect_uri client by reference with POST",
    );
    const rec = await expectJson(await s.receive(post.link), 201);
    assert.equal(rec.state, "request-received");
    const [postedUnsigned, posted] = s.verifier.fetched.filter((f) => f.method === "POST");
    const walletMetadata = (f: typeof posted) =>
      JSON.parse(new URLSearchParams(f!.body).get("wallet_metadata")!);
    assert.equal(posted!.accept, "application/oauth-authz-req+jwt");
    const metadata = walletMetadata(posted);
    assert.deepEqual(metadata.vp_formats_supported["dc+sd-jwt"]["kb-jwt_alg_values"], [
      "EdDSA",
      "ES256",
    ]);
    assert.ok(metadata.request_object_signing_alg_values_supported.includes("EdDSA"));
    const unsignedMetadata = walletMetadata(postedUnsigned);
    assert.ok(unsignedMetadata.vp_formats_supported, "wallet_metadata sent with POST");
    assert.equal(unsignedMetadata.request_object_signing_alg_values_supported, undefined);
    const unsigned = await s.receive(await link({ unsignedObject: true }));
    assert.equal((await expectJson(unsigned, 201)).state, "request-received");
  } finally {
    await s.close();
  }
});

Deno.test("OID4VP request rules: a response_uri the outbound policy refuses is refused before anything is recorded", async () => {
  // Host names resolve to a public address here; the verifier's 127.0.0.1 is a literal.
  const s = await setup("127.0.0.1", {
    env: { OUTBOUND_ALLOW_PRIVATE: "false" },
    build: { resolveHost: () => Promise.resolve(["93.184.216.34"]) },
  }, "https://agent.example/didcomm");
  try {
    const msg = await s.refused((await s.verifier.request({})).link, "response_uri");
    assert.match(msg, /not allowed/);
  } finally {
    await s.close();
  }
});

Deno.test("OID4VP x509_san_dns: a chain to a configured anchor is accepted and answered; another CA, no anchors, another DNS name, another response_uri host are refused", async () => {
  const chain = await makeChain("localhost");
  const s = await setup("localhost", { env: { OID4VP_X509_TRUST_ANCHORS: chain.caPem } });
  try {
    const ok = await s.verifier.request({ signer: "x509", chain });
    const rec = await expectJson(await s.receive(ok.link), 201);
    assert.deepEqual(rec.verifier, {
      clientId: "x509_san_dns:localhost",
      prefix: "x509_san_dns",
      name: "Local Test Verifier",
    });
    const done = await expectJson(
      await s.ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${rec.id}/accept`, {
        token: s.token,
      }),
      200,
    );
    assert.equal(done.state, "done");
    assert.equal(s.verifier.received(ok.id).length, 1);
    await s.ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${rec.id}/decline`, {
      token: s.token,
    });
    // The list is no longer empty; refusals below are checked by their rule and by the count.
    const count = async () =>
      ((await expectJson(
        await s.ctx.call("GET", `/orgs/${ORG}/openid4vp/requests`, { token: s.token }),
        200,
      )).data as Json[]).length;
    const refusedX = async (request: string, rule: string) => {
      const body = await expectJson(await s.receive(request), 400);
      assert.equal((body.details as Json[])[0]?.path, rule, String(body.message));
      assert.equal(await count(), 1);
    };
    const otherCa = await makeChain("localhost");
    await refusedX(
      (await s.verifier.request({ signer: "x509", chain: otherCa })).link,
      "x509_trust_chain",
    );
    // A leaf of the configured CA, but for another DNS name than the client identifier.
    const otherName = await makeChain("verifier.example", { ca: chain.ca });
    await refusedX(
      (await s.verifier.request({ signer: "x509", chain: otherName })).link,
      "x509_san_dns",
    );
    await refusedX(
      (await s.verifier.request({
        signer: "x509",
        chain,
        extra: { response_uri: `http://127.0.0.1:1/cb/elsewhere` },
      })).link,
      "response_uri",
    );
  } finally {
    await s.close();
  }
  const none = await setup("localhost");
  try {
    const msg = await none.refused(
      (await none.verifier.request({ signer: "x509" })).link,
      "x509_trust_chain",
    );
    assert.match(msg, /OID4VP_X509_TRUST_ANCHORS/);
  } finally {
    await none.close();
  }
});

Deno.test("OID4VP_X509_TRUST_ANCHORS: PEM without a certificate, an unreadable file or a certificate that does not parse stop the start with a message naming the setting", async () => {
  const env = {
    AUTH_PUBLIC_KEY:
      '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}',
    AUTH_ISSUER: "https://idp.test",
    AUTH_AUDIENCE: "a",
    SECRETS_KEY: randomSecretsKey(),
  };
  assert.throws(
    () => parseConfig({ ...env, OID4VP_X509_TRUST_ANCHORS: "-----BEGIN PUBLIC KEY-----x" }),
    (e) => e instanceof ConfigError && /OID4VP_X509_TRUST_ANCHORS/.test(e.message),
  );
  for (
    const value of [
      "/nonexistent/anchors.pem",
      "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
    ]
  ) {
    const kv = await Deno.openKv(":memory:");
    try {
      await assert.rejects(
        () => buildServices(parseConfig({ ...env, OID4VP_X509_TRUST_ANCHORS: value }), kv),
        (e: unknown) => e instanceof ConfigError && /OID4VP_X509_TRUST_ANCHORS/.test(e.message),
      );
    } finally {
      kv.close();
    }
  }
});
