/**
 * The resolver page and org console in a real headless Chromium (Debian's `chromium`, driven by
 * puppeteer-core) against the served app on 127.0.0.1, with a real loopback did:web host and a
 * real webhook receiver. Skipped with the reason printed where Chromium is not installed, except
 * under `CI=true` (`.ci/run` installs it); shared parts in `browser.ts`. The console against real
 * Credo peers is in `console_peers_test.ts`.
 */
import assert from "node:assert/strict";
import type { Page } from "./puppeteer.ts";
import { clickLabeled, ignore, launch, shot, text, watch, type Win } from "./browser.ts";
import { configureAgent, servedContext } from "../didcomm/helpers.ts";
import { didHost, json, webDoc } from "../did/did_host.ts";
import { plcDirectory } from "../did/plc_directory.ts";
import { receiver, register, sendTest } from "../webhooks/helpers.ts";
import { waitFor } from "../support/wait.ts";
import {
  createCredentialContext,
  exchangeToCredentialReceived,
  offerMessage,
} from "../issue_credential/helpers.ts";
import { keys } from "../../src/kv/mod.ts";

/** Triggers a resolution with `act` and waits until the page says it is done. */
async function resolved(page: Page, act: () => Promise<void>) {
  await act();
  await page.waitForFunction(
    () =>
      (globalThis as unknown as Win).document.getElementById("r-live")!.textContent!.startsWith(
        "Done",
      ),
    { timeout: 10_000 },
  );
  return {
    status: await text(page, "#r-status"),
    cache: await text(page, "#r-cache"),
    doc: await text(page, "#r-doc"),
    error: await text(page, "#r-error"),
  };
}

Deno.test({
  name: "page: resolve by keyboard, servedFromCache on the second try, every example, errors, " +
    "Tab, 390 px, no console errors, nothing leaves loopback",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const host = didHost({ "/.well-known/did.json": (_req, did) => json(webDoc(did)) });
    // A did:plc example, its audit log served by a local stand-in for the PLC directory.
    const plcLog = JSON.parse(
      Deno.readTextFileSync(new URL("../did/vectors/plc/log_bskyapp.json", import.meta.url)),
    );
    const plc = plcDirectory({ logs: { [plcLog[0].did]: plcLog } });
    const ctx = await servedContext({
      env: {
        DID_RESOLUTION_PUBLIC: "true",
        DID_TEST_IDENTIFIERS: `${host.did},${plcLog[0].did}`,
        DID_PLC_DIRECTORY_URL: plc.url,
      },
    });
    const { browser, close } = await launch();
    try {
      const page = await browser.newPage();
      const seen = watch(page);
      await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
      const res = await page.goto(`${ctx.baseUrl}/`, { waitUntil: "networkidle0" });
      assert.equal(res?.status(), 200);
      assert.match(res!.headers()["content-security-policy"]!, /script-src 'self'/);

      // Examples: one per method from /1.0/testIdentifiers (web, plc from DID_TEST_IDENTIFIERS).
      await page.waitForSelector("#examples button");
      const examples = await page.$$eval(
        "#examples button",
        (bs) => bs.map((b) => ({ label: b.textContent!, did: b.getAttribute("data-did")! })),
      );
      const labels = examples.map((e) => e.label);
      for (const m of ["did:key", "did:jwk", "did:peer", "did:web", "did:plc"]) {
        assert.ok(labels.includes(m), `${m} example in ${labels}`);
      }

      // Type a DID and press Enter; the second time it is served from the cache.
      await page.click("#did");
      await page.keyboard.type(host.did);
      const first = await resolved(page, () => page.keyboard.press("Enter"));
      assert.match(first.status, /^200/);
      assert.equal(first.cache, "false");
      assert.ok(first.doc.includes(`"id": "${host.did}"`), first.doc);
      const second = await resolved(page, () => page.keyboard.press("Enter"));
      assert.match(second.status, /^200/);
      assert.equal(second.cache, "true");
      await shot(page, "resolver-phone.png");

      // Every example resolves (DIDs and the DID URL example).
      for (const ex of examples) {
        const r = await resolved(
          page,
          () => page.click(`#examples button[data-did="${ex.did}"]`),
        );
        assert.match(r.status, /^200/, `${ex.label}: ${r.status} ${r.error}`);
        assert.ok(r.doc.includes(ex.did.split("#")[0]!), ex.label);
      }

      // An invalid DID gives a readable error.
      await page.$eval("#did", (e) => (e.value = ""));
      await page.type("#did", "did:key:notakey");
      const bad = await resolved(page, () => page.keyboard.press("Enter"));
      assert.match(bad.status, /^400/);
      assert.match(bad.error, /^invalidDid: .{10,}/);
      await page.$eval("#did", (e) => (e.value = ""));
      await page.type("#did", "hello world");
      const notDid = await resolved(page, () => page.keyboard.press("Enter"));
      assert.match(notDid.status, /^400/);
      assert.match(notDid.error, /invalidDid: .*did:/);

      // No horizontal scroll at 390 px.
      const widths = await page.evaluate(() => ({
        scroll: (globalThis as unknown as Win).document.documentElement.scrollWidth,
        client: (globalThis as unknown as Win).document.documentElement.clientWidth,
      }));
      assert.ok(widths.scroll <= widths.client, JSON.stringify(widths));

      // Tab reaches the controls.
      await page.evaluate(() => (globalThis as unknown as Win).document.activeElement?.blur());
      const reached = new Set<string>();
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press("Tab");
        reached.add(
          await page.evaluate(() => {
            const a = (globalThis as unknown as Win).document.activeElement;
            return a ? (a.id || a.getAttribute("data-did") || a.tagName) : "";
          }),
        );
      }
      for (const id of ["token", "did", "resolve", examples[0]!.did]) {
        assert.ok(reached.has(id), `Tab reaches ${id}: ${[...reached]}`);
      }

      assert.deepEqual(seen.errors, []);
      // The only refused requests were the two invalid DIDs.
      assert.equal(seen.answered4xx.length, 2, seen.answered4xx.join("\n"));
      assert.ok(seen.answered4xx.every((e) => /status of 400.*(notakey|hello%20world)/.test(e)));
      const base = new URL(ctx.baseUrl);
      for (const u of seen.requests) {
        if (u.startsWith("data:")) continue;
        assert.equal(new URL(u).host, base.host, `request left loopback: ${u}`);
      }
    } finally {
      await close();
      await ctx.close();
      await host.close();
      await plc.close();
    }
  },
});

Deno.test({
  name: "console: an admin's token shows the agent and webhook endpoint, lists a delivery and " +
    "re-sends a dead one",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const ctx = await servedContext();
    // The receiver answers 410 first (dead at once, endpoint disabled), then 200.
    const rx = receiver((_r, n) => new Response(null, { status: n === 1 ? 410 : 200 }));
    const { browser, close } = await launch();
    try {
      await register(ctx, "org-a", rx.hook);
      const testEvent = await sendTest(ctx, "org-a");
      await ctx.services.dispatcher.runOnce();
      await register(ctx, "org-a", rx.hook); // enabled again
      await configureAgent(ctx, "org-a", `${ctx.baseUrl}/didcomm`); // agent.configured, delivered
      await ctx.services.dispatcher.runOnce();
      const tests = () => rx.got.filter((g) => g.headers["webhook-id"] === testEvent);
      assert.equal(tests().length, 1);
      assert.equal(rx.got.length, 2);

      const page = await browser.newPage();
      const seen = watch(page);
      await page.setViewport({ width: 1000, height: 900, deviceScaleFactor: 1 });
      await page.goto(`${ctx.baseUrl}/`, { waitUntil: "networkidle0" });
      // Without a token the examples say what is needed.
      assert.match(await text(page, "#examples-note"), /token/);

      const token = await ctx.token({ "org-a": ["owner"], "org-b": ["member"] }, "alice");
      await page.type("#token", token);
      await page.keyboard.press("Enter");
      await page.waitForSelector("#console:not([hidden])");
      await page.waitForSelector("#deliveries li[data-status]");
      assert.equal(await page.$eval("#token", (e) => e.value), "");
      assert.match(await text(page, "#who"), /alice.*org-a/);
      assert.deepEqual(await page.$$eval("#org option", (os) => os.map((o) => o.textContent)), [
        "org-a",
      ]);
      assert.match(await text(page, "#agent"), /HolderAgent/);
      assert.match(await text(page, "#agent"), /never shown/);
      assert.match(await text(page, "#webhook"), new RegExp(rx.hook.replaceAll(".", "\\.")));
      assert.match(await text(page, "#connections"), /No connections/);
      assert.match(await text(page, "#exchanges"), /No credential exchanges/);
      await page.waitForFunction(() => {
        const d = (globalThis as unknown as Win).document;
        return /No OpenID4VCI offers/.test(d.getElementById("oid4vc-offers")!.textContent!) &&
          /No SD-JWT credentials/.test(d.getElementById("sd-jwt-credentials")!.textContent!);
      });
      // A malformed offer: the service's 400 message is shown.
      await page.type("#offer-uri", "openid-credential-offer://?nothing=here");
      await page.click("#offer-form button");
      await page.waitForFunction(() =>
        /credential_offer/.test(
          (globalThis as unknown as Win).document.getElementById("console-msg")!.textContent!,
        )
      );
      await page.waitForSelector("#examples button");

      const dead = await page.$('#deliveries li[data-status="dead"]');
      assert.ok(dead, await text(page, "#deliveries"));
      assert.match(await text(page, '#deliveries li[data-status="dead"]'), /webhook\.test/);
      await shot(page, "console.png");

      await page.click('#deliveries li[data-status="dead"] button');
      await page.waitForFunction(
        () =>
          (globalThis as unknown as Win).document.getElementById("console-msg")!.textContent!
            .startsWith("Done"),
      );
      await ctx.services.dispatcher.runOnce();
      await waitFor("re-sent delivery", () => tests().length === 2, 5000);
      await page.click("#refresh");
      await page.waitForSelector('#deliveries li[data-status="succeeded"]');
      assert.equal(await page.$('#deliveries li[data-status="dead"]'), null);

      // The token never reached a URL, cookie or storage.
      assert.ok(seen.requests.every((u) => !u.includes(token)));
      const cookies = await browser.cookies();
      assert.deepEqual(cookies, []);
      const stored = await page.evaluate(() =>
        (globalThis as unknown as Win).localStorage.length +
        (globalThis as unknown as Win).sessionStorage.length
      );
      assert.equal(stored, 0);
      assert.deepEqual(seen.errors, []);
    } finally {
      await close();
      await rx.close();
      await ctx.close();
    }
  },
});

Deno.test({
  name: "console: credential exchanges with accept-offer, decline and accept-credential",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // The DIDComm transport is the credential tests' named fake (FakeDidcomm); the holder,
    // records, routes and page are the real ones.
    const ctx = await createCredentialContext();
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req) => ctx.app.fetch(req),
    );
    const base = `http://127.0.0.1:${server.addr.port}`;
    const { browser, close } = await launch();
    try {
      const received = await exchangeToCredentialReceived(ctx);
      const offer = async () => {
        const thid = crypto.randomUUID();
        await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
        return (await ctx.kv.get<string>(keys.credentialByThread(ctx.orgId, thid))).value!;
      };
      const toAccept = await offer();
      const toDecline = await offer();

      const page = await browser.newPage();
      const seen = watch(page);
      await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
      await page.goto(`${base}/`, { waitUntil: "networkidle0" });
      await page.type("#token", await ctx.token({ "org-a": ["admin"] }));
      await page.keyboard.press("Enter");
      await page.waitForSelector(`#exchanges li[data-exchange="${received.id}"]`);

      const act = async (id: string, label: string) => {
        await clickLabeled(page, `#exchanges li[data-exchange="${id}"]`, label);
        await page.waitForFunction(
          (l) =>
            (globalThis as unknown as Win).document.getElementById("console-msg")!.textContent ===
              `Done: ${l}.`,
          {},
          label,
        );
        await page.evaluate(
          () => ((globalThis as unknown as Win).document.getElementById("console-msg")!
            .textContent = ""),
        );
      };
      await act(received.id, "Accept credential");
      await act(toAccept, "Accept offer");
      await act(toDecline, "Decline");
      await shot(page, "console-exchanges-phone.png");

      const state = async (id: string) => (await ctx.holder.find(id))?.record.state;
      assert.equal(await state(received.id), "done");
      assert.equal(await state(toAccept), "request-sent");
      assert.equal(await state(toDecline), "declined");
      const shown = await text(page, "#exchanges");
      for (const s of ["done", "request-sent", "declined"]) assert.ok(shown.includes(s), shown);
      // The ack and the request went out through the (fake) DIDComm layer.
      const sent = (await ctx.flush()).map((s) => s.message["@type"].split("/").pop());
      assert.ok(sent.includes("ack"), String(sent));
      assert.deepEqual(seen.errors, []);
    } finally {
      await close();
      await server.shutdown();
      await ctx.close();
    }
  },
});
