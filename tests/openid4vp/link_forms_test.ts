/**
 * The forms an OpenID4VP request link arrives in (CONTRACT "OpenID4VP holder"): `openid4vp://?…`,
 * `openid4vp://authorize?…`, `haip://…` and an `https://` link with the same query are the same
 * request, by value and by reference; a link of another scheme is 400. The verifier is a real
 * local HTTP server (`local_verifier.ts`).
 */
import assert from "node:assert/strict";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson } from "../support/context.ts";
import { startLocalVerifier } from "./local_verifier.ts";
import { storeSdJwt } from "./stored_credentials.ts";

const ORG = "org-links";

/** The link's query under another scheme and path. */
const as = (link: string, prefix: string) => prefix + link.slice(link.indexOf("?"));

Deno.test("OID4VP links: openid4vp://, openid4vp://authorize, haip:// and https:// forms are the same request, by value and by reference", async () => {
  const ctx = await createTestContext();
  const verifier = await startLocalVerifier();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    const stored = await storeSdJwt(ctx, ORG, { given_name: "Erika" });
    const token = await ctx.token({ [ORG]: ["member"] });
    const receive = (request: string) =>
      ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, { token, body: { request } });
    const forms = [
      "openid4vp://",
      "openid4vp://authorize",
      "haip://",
      "https://wallet.example/authorize",
    ];
    for (const signer of ["none", "did"] as const) {
      for (const form of forms) {
        const req = await verifier.request({ signer });
        const rec = await expectJson(await receive(as(req.link, form)), 201);
        assert.equal(rec.state, "request-received", `${form} ${signer}`);
        assert.equal((rec.verifier as { clientId: string }).clientId, req.clientId, form);
        const [query] = rec.queries as { matches: { credentialId: string }[] }[];
        assert.deepEqual(query!.matches.map((m) => m.credentialId), [stored], form);
      }
    }
    const ftp = await expectJson(
      await receive(as((await verifier.request()).link, "ftp://x/")),
      400,
    );
    assert.match(String(ftp.message), /"ftp:" links are not OpenID4VP requests/);
  } finally {
    await verifier.close();
    await ctx.close();
  }
});
