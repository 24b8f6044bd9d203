/**
 * The org console answering a real OpenID4VP request, in headless Chromium (see `browser.ts`): the
 * Credo 0.6.3 issuer of the interop tests issues the org an SD-JWT VC, the Credo 0.6.3 verifier
 * asks for two of its claims; the page shows the verifier's name, how it was checked and exactly
 * which claims (with their values) the answer would disclose; "Accept and present" sends it and
 * Credo verifies exactly those claims; a second request is declined from the page. Skipped where
 * Chromium or the peers' npm packages are missing, except under `CI=true`.
 */
import assert from "node:assert/strict";
import { clickLabeled, ignore, launch, shot, text, watch, type Win } from "./browser.ts";
import type { ServedContext } from "../didcomm/helpers.ts";
import {
  identityQuery,
  type Json,
  ORG,
  sentTo,
  vpInterop,
  vpSetup,
  vpTeardown,
} from "../interop/oid4vp_support.ts";

Deno.test({
  name: "console: a real Credo verifier's OpenID4VP request shows the verifier and exactly the " +
    "claims the answer would disclose; accepting it from the page presents them, Credo verifies; " +
    "another is declined",
  ignore: ignore || vpInterop.ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await vpSetup({}, true);
    const ctx = s.ctx as ServedContext;
    const { browser, close } = await launch();
    try {
      const req = await s.verifier.createRequest({
        dcql: identityQuery([["given_name"], ["address", "locality"]]),
        signer: "did",
      });
      const page = await browser.newPage();
      const seen = watch(page);
      await page.setViewport({ width: 1000, height: 900, deviceScaleFactor: 1 });
      await page.goto(`${ctx.baseUrl}/`, { waitUntil: "networkidle0" });
      await page.type("#token", await ctx.token({ [ORG]: ["owner"] }, "vera"));
      await page.keyboard.press("Enter");
      await page.waitForSelector("#console:not([hidden])");

      await page.type("#vp-request", req.authorizationRequest);
      await page.click("#vp-form button");
      const item = "#oid4vp-requests li[data-presentation]";
      await page.waitForSelector(item);
      assert.equal(await text(page, "#console-msg"), "Presentation request received.");
      const shown = await text(page, item);
      assert.match(shown, /Credo Test Verifier \(decentralized_identifier:did:key:z6Mk/);
      assert.match(shown, /request signed by a key of did:key:/);
      assert.match(shown, /request-received/);
      assert.match(
        shown,
        /Would disclose from SD-JWT credential [0-9a-f-]+: given_name=Erika, address\.locality=Koeln/,
      );
      for (const unrequested of ["family_name", "birthdate", "street_address", "Mustermann"]) {
        assert.ok(!shown.includes(unrequested), `${unrequested} is not shown as disclosed`);
      }
      await shot(page, "console-oid4vp.png");

      await clickLabeled(page, item, "Accept and present");
      await page.waitForFunction(() =>
        (globalThis as unknown as Win).document.getElementById("oid4vp-requests")!.textContent!
          .includes("Disclosed from")
      );
      assert.match(await text(page, item), /\bdone\b/);
      const session = await s.verifier.waitForSession(req.verificationSessionId);
      assert.equal(session.state, "ResponseVerified", String(session.errorMessage));
      const claims = session.presentations!.pid![0]!.claims as Json;
      assert.equal(claims.given_name, "Erika");
      assert.deepEqual(claims.address, { locality: "Koeln", country: "DE" });
      assert.equal(claims.family_name, undefined);

      // A second request, declined from the page: Credo is told access_denied.
      const other = await s.verifier.createRequest({
        dcql: identityQuery([["birthdate"]]),
        signer: "did",
      });
      await page.type("#vp-request", other.authorizationRequest);
      await page.click("#vp-form button");
      const open = `#oid4vp-requests li[data-state="request-received"]`;
      await page.waitForSelector(open);
      assert.match(await text(page, open), /birthdate=1964-08-12/);
      await clickLabeled(page, open, "Decline");
      await page.waitForSelector(`#oid4vp-requests li[data-state="declined"]`);
      const told = await sentTo(s.verifier, other.authorizationRequestId);
      assert.deepEqual(told.map((t) => t.error), ["access_denied"]);
      // Credo answers the decline with 400 (it expects a vp_token); the page itself logs nothing.
      assert.deepEqual(seen.errors, []);
    } finally {
      await close();
      await vpTeardown(s);
    }
  },
});
