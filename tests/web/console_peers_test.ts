/**
 * The org console against the real Credo peers of the interop tests, in headless Chromium (see
 * `browser.ts`): a DIDComm credential exchange with the Credo issuer, and an OpenID4VCI offer from
 * the Credo OpenID4VCI issuer with a transaction code. Skipped where Chromium or the peers' npm
 * packages are missing, except under `CI=true`.
 */
import assert from "node:assert/strict";
import {
  clickDone,
  clickLabeled,
  ignore,
  launch,
  openConsole,
  shot,
  text,
  type Win,
} from "./browser.ts";
import { configureAgent, servedContext } from "../didcomm/helpers.ts";
import { waitFor } from "../support/wait.ts";
import { credoInterop, interopOptions } from "../interop/availability.ts";
import { receiveInvitation, withCredoIssuer } from "../interop/holder_service.ts";
import { startOid4vcIssuer } from "../interop/oid4vc_peer.ts";
import { startRelay } from "../interop/oid4vc_relay.ts";
import { expectJson } from "../support/context.ts";

const oid4vcPeer = interopOptions(
  new URL("../interop/oid4vc_peer/", import.meta.url),
  "node_modules/@credo-ts/openid4vc/package.json",
);

Deno.test({
  name: "console: an OpenID4VCI offer from a real Credo issuer is received, a wrong transaction " +
    "code is refused, the right one accepted, and the SD-JWT credential listed",
  ignore: ignore || oid4vcPeer.ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // The Credo 0.6.3 issuer of the interop tests, behind its relay (it publishes the relay's
    // origin as its own).
    const relay = startRelay();
    const issuer = await startOid4vcIssuer({ publicOrigin: relay.origin });
    relay.setTarget(`http://127.0.0.1:${issuer.port}`);
    const ctx = await servedContext();
    const { browser, close } = await launch();
    try {
      await configureAgent(ctx, "org-a", `${ctx.baseUrl}/didcomm`);
      const offer = await issuer.createOffer({ txCode: true });
      assert.ok(offer.txCode);

      const { page, seen } = await openConsole(
        browser,
        ctx.baseUrl,
        await ctx.token({ "org-a": ["owner"] }, "hana"),
      );
      const msg = () => text(page, "#console-msg");

      await page.type("#offer-uri", offer.offerUri);
      await page.click("#offer-form button");
      await page.waitForSelector("#oid4vc-offers li[data-offer]");
      assert.equal(await msg(), "Offer received.");
      const item = "#oid4vc-offers li[data-offer]";
      assert.match(await text(page, item), /offer-received/);
      assert.match(await text(page, item), new RegExp(relay.origin.replaceAll(".", "\\.")));

      const accept = async (code: string) => {
        await page.$eval(
          `${item} input[aria-label="Transaction code"]`,
          (e) => ((e as unknown as { value: string }).value = ""),
        );
        await page.type(`${item} input[aria-label="Transaction code"]`, code);
        await clickLabeled(page, item, "Accept offer");
      };
      // A wrong code: the issuer refuses, the page shows why, the offer can be accepted again.
      const wrong = offer.txCode === "0000" ? "1111" : "0000";
      await accept(wrong);
      await page.waitForFunction(() =>
        /invalid|transaction|tx_code|grant/i.test(
          (globalThis as unknown as Win).document.getElementById("console-msg")!.textContent!,
        )
      );
      assert.match(await text(page, item), /offer-received/);
      await accept(offer.txCode!);
      await page.waitForSelector("#sd-jwt-credentials li[data-sd-jwt]", { timeout: 15_000 });
      await page.waitForFunction(() =>
        /done/.test(
          (globalThis as unknown as Win).document.getElementById("oid4vc-offers")!.textContent!,
        )
      );
      const credential = await text(page, "#sd-jwt-credentials li[data-sd-jwt]");
      // The default claims of the peer, nested disclosure included, as the issuer issued them.
      for (const claim of [/given_name=/, /family_name=/, /street_address/, /issuing_country=/]) {
        assert.match(credential, claim);
      }
      await shot(page, "console-oid4vc.png");

      const stored = await expectJson(
        await ctx.call("GET", "/orgs/org-a/sd-jwt-credentials", {
          token: await ctx.token({ "org-a": ["holder"] }),
        }),
        200,
      );
      assert.equal((stored.data as unknown[]).length, 1);
      // The wrong code's answer is the contract's 502 (the issuer refused); Chromium logs it. Any
      // other console error fails the test.
      const refused = seen.errors.filter((e) =>
        / 502 .*\/openid4vc\/offers\/[^/]+\/accept$/.test(e)
      );
      assert.equal(refused.length, 1, seen.errors.join("\n"));
      assert.deepEqual(seen.errors.filter((e) => !refused.includes(e)), []);
    } finally {
      await close();
      await ctx.close();
      await issuer.close();
      await relay.close();
    }
  },
});

Deno.test({
  name:
    "console: a real Credo issuer's credential offer is accepted, and its credential accepted " +
    "(ack sent), from the page",
  ignore: ignore || credoInterop.ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withCredoIssuer("org-a", async (issuer, ctx) => {
      // The connection is made over the API (the console has no invitation form); everything
      // after the offer is done from the page.
      const token = await ctx.token({ "org-a": ["owner"] }, "olga");
      const inv = await issuer.createInvitation("didexchange");
      await receiveInvitation(ctx, "org-a", token, inv.invitationUrl);
      const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000);
      const offer = await issuer.offerCredential({ connectionId: theirs.id });
      const exchange = async (state: string) =>
        await waitFor(`our exchange in ${state}`, async () => {
          const list = await expectJson(
            await ctx.call("GET", "/orgs/org-a/credentials", { token }),
            200,
          );
          return (list.data as { id: string; threadId: string; state: string }[]).find((x) =>
            x.threadId === offer.threadId && x.state === state
          );
        }, 15_000);
      const offered = await exchange("offer-received");

      const { browser, close } = await launch();
      try {
        const { page, seen } = await openConsole(browser, ctx.baseUrl, token);
        const row = `#exchanges li[data-exchange="${offered.id}"]`;
        await page.waitForSelector(row);
        const click = (label: string) => clickDone(page, row, label);
        await click("Accept offer");
        // Credo answers the request with the credential; the page shows it after a refresh.
        await exchange("credential-received");
        await page.click("#refresh");
        await page.waitForFunction(() =>
          /credential-received/.test(
            (globalThis as unknown as Win).document.getElementById("exchanges")!.textContent!,
          )
        );
        // No webhook endpoint is registered: the events' deliveries say they sent nothing.
        assert.match(await text(page, "#deliveries"), /without a request: no endpoint/);
        await click("Accept credential");
        // The message comes before the list is reloaded: wait for the row to say so.
        await page.waitForFunction(() =>
          /State\s*done/.test(
            (globalThis as unknown as Win).document.getElementById("exchanges")!.innerText,
          )
        );
        const theirRecord = await issuer.waitForCredential(
          offer.credentialExchangeId,
          "done",
          15_000,
        );
        assert.equal(theirRecord.state, "done");
        await shot(page, "console-exchange-credo.png");
        assert.deepEqual(seen.errors, []);
      } finally {
        await close();
      }
    }),
});
