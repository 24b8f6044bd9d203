/**
 * Malformed offers are the caller's 400 with a sentence naming what is wrong, before any issuer is
 * asked; the pre-authorized code of a by-value offer is never echoed back.
 */
import assert from "node:assert/strict";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson } from "../support/context.ts";

const PRE = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
const byValue = (offer: unknown) =>
  `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(offer))}`;

Deno.test("POST /openid4vc/offers: malformed offers are 400 naming the problem, never echoing the code", async () => {
  const ctx = await createTestContext();
  try {
    await configureAgent(ctx, "org-a", "http://127.0.0.1:9/didcomm");
    const token = await ctx.token({ "org-a": ["member"] });
    const send = async (credentialOffer: string) =>
      JSON.stringify(
        await expectJson(
          await ctx.call("POST", "/orgs/org-a/openid4vc/offers", {
            token,
            body: { credentialOffer },
          }),
          400,
        ),
      );
    const wrongType = await send(
      byValue({ credential_issuer: 5, grants: { [PRE]: { "pre-authorized_code": "SECRET123" } } }),
    );
    assert.match(wrongType, /credential_issuer/);
    assert.ok(!wrongType.includes("SECRET123"), wrongType);
    assert.match(await send("openid-credential-offer://?credential_offer=%7Bnot"), /JSON/);
    assert.match(
      await send(byValue({
        credential_issuer: "https://issuer.example",
        credential_configuration_ids: ["A"],
        grants: { authorization_code: { issuer_state: "x" } },
      })),
      /pre-authorized code grant/,
    );
    assert.match(await send("https://not-an-offer.example/"), /credential_offer/);
  } finally {
    await ctx.close();
  }
});
