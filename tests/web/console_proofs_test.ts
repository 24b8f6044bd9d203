/**
 * The org console answers a real proof request (headless Chromium, see `browser.ts`): a Credo
 * 0.6.3 agent issues its JSON-LD credential over a connection, then asks for a presentation on the
 * same connection; the page shows the verifier's label, what the descriptor asks for and exactly
 * which credential and claims the answer would carry; "Accept request" sends it, and Credo
 * verifies it (its record done, `isVerified`). A request no stored credential met when it arrived
 * shows no Accept until a matching credential is stored; after a refresh the page offers it and
 * accepting sends it. Skipped where Chromium (or, for the first, the Credo peer's npm packages) is
 * missing, except under `CI=true`.
 */
import assert from "node:assert/strict";
import { clickDone, ignore, launch, openConsole, shot, text, type Win } from "./browser.ts";
import { waitFor } from "../support/wait.ts";
import { expectJson, serveLocal } from "../support/context.ts";
import { credoInterop } from "../interop/availability.ts";
import { withCredoIssuer } from "../interop/holder_service.ts";
import { connectAndIssue } from "../interop/credo_credential.ts";
import { createProofContext, receiveRequest, sentOn } from "../present_proof/helpers.ts";

Deno.test({
  name: "console: a real Credo verifier's proof request shows who asks and what would be sent; " +
    "accepted from the page, Credo verifies it",
  ignore: ignore || credoInterop.ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withCredoIssuer("org-a", async (issuer, ctx) => {
      const token = await ctx.token({ "org-a": ["owner"] }, "petra");
      const { theirs, credentialId } = await connectAndIssue(issuer, ctx, "org-a", token);
      const req = await issuer.requestProof({ connectionId: theirs });
      const record = await waitFor("our proof record", async () => {
        const list = await expectJson(await ctx.call("GET", "/orgs/org-a/proofs", { token }), 200);
        return (list.data as { id: string; threadId: string }[]).find((p) =>
          p.threadId === req.threadId
        );
      }, 15_000);

      const { browser, close } = await launch();
      try {
        const { page, seen } = await openConsole(browser, ctx.baseUrl, token);
        const row = `#proofs li[data-proof="${record.id}"]`;
        await page.waitForSelector(`${row} .carries`);
        const shown = await text(page, row);
        assert.match(shown, /Credo Issuer/);
        assert.match(shown, /request-received/);
        assert.match(shown, /\$\.credentialSubject\.name/);
        assert.match(
          shown,
          new RegExp(`Would send: credential ${credentialId} from ${issuer.issuerDid}: name=Alice`),
        );
        await shot(page, "console-proof-credo.png");
        await clickDone(page, row, "Accept request");
        const verified = await issuer.waitForProof(req.proofExchangeId, "done", 15_000);
        assert.equal(verified.isVerified, true);
        // Credo's ack arrives: the record is done after a refresh.
        await waitFor("our record done", async () =>
          (await expectJson(await ctx.call("GET", `/proofs/${record.id}`, { token }), 200))
            .state === "done", 15_000);
        await page.click("#refresh");
        await page.waitForFunction(() =>
          /State\s*done/.test(
            (globalThis as unknown as Win).document.getElementById("proofs")!.innerText,
          )
        );
        assert.match(await text(page, row), /Sent: credential/);
        assert.deepEqual(seen.errors, []);
      } finally {
        await close();
      }
    }),
});

Deno.test({
  name: "console: a proof request unanswerable when it arrived offers Accept once a matching " +
    "credential is stored, and accepting it from the page sends that credential",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const ctx = await createProofContext();
    const server = serveLocal((req) => ctx.app.fetch(req));
    const { browser, close } = await launch();
    try {
      const { req, rec } = await receiveRequest(ctx);
      assert.ok(rec.unanswerable);
      const token = await ctx.token({ [ctx.orgId]: ["owner"] }, "petra");
      const { page, seen } = await openConsole(browser, server.url, token);
      const row = `#proofs li[data-proof="${rec.id}"]`;
      await page.waitForSelector(row);
      assert.match(await text(page, row), /Cannot answer/);
      const buttons = () => page.$$eval(`${row} button`, (bs) => bs.map((b) => b.textContent));
      assert.deepEqual(await buttons(), ["Decline request"]);

      const alice = await ctx.store({ name: "Alice" });
      await page.click("#refresh");
      await page.waitForSelector(`${row} .carries`);
      const shown = await text(page, row);
      assert.doesNotMatch(shown, /Cannot answer/);
      assert.match(
        shown,
        new RegExp(`Would send: credential ${alice} from ${ctx.issuer.did}: name=Alice`),
      );
      assert.deepEqual(await buttons(), ["Accept request", "Decline request"]);
      await clickDone(page, row, "Accept request");
      const sent = await expectJson(await ctx.call("GET", `/proofs/${rec.id}`, { token }), 200);
      assert.equal(sent.state, "presentation-sent");
      assert.deepEqual(sent.selection, { name: alice });
      assert.equal(sentOn(await ctx.flush(), req["@id"], "presentation").length, 1);
      assert.deepEqual(seen.errors, []);
    } finally {
      await close();
      await server.close();
      await ctx.close();
    }
  },
});
