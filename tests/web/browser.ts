/**
 * What the browser tests share: Debian's `chromium` driven by puppeteer-core (`puppeteer.ts`; run
 * these tests with `deno task test`, which pins it in `tests/deno.lock`; skipped with the
 * reason printed where it is not installed, except under `CI=true`), a watcher of console errors
 * and requests, and small helpers for the page. `SCREENSHOTS=update` writes the screenshots shown
 * in src/web/README.md to `tests/web/screenshots/`.
 */
import assert from "node:assert/strict";
import { type Browser, launchBrowser, type Page, type PageElement } from "./puppeteer.ts";

/**
 * The few browser globals the page callbacks below use, typed here: the DOM library is not part of
 * this Deno program (it would change the types of every other file). Callbacks run in the page,
 * where `globalThis` is the window. An element is puppeteer.ts's {@link PageElement}.
 */
export type El = PageElement;
export interface Win {
  document: {
    activeElement: El | null;
    getElementById(id: string): El;
    documentElement: { scrollWidth: number; clientWidth: number };
  };
  localStorage: { length: number };
  sessionStorage: { length: number };
}

const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
const SHOTS = new URL("./screenshots/", import.meta.url);

function chromiumProblem(): string | undefined {
  try {
    Deno.statSync(CHROMIUM);
    return undefined;
  } catch {
    return `${CHROMIUM} is missing (apt-get install chromium)`;
  }
}

const problem = chromiumProblem();
export const ignore = problem !== undefined && Deno.env.get("CI") !== "true";
if (ignore) console.log(`browser tests skipped: ${problem}`);

export async function launch(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const profile = await Deno.makeTempDir({ prefix: "chromium-profile-" });
  const browser = await launchBrowser({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-extensions",
      "--no-default-browser-check",
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Watches a page: console errors, page errors and every requested URL. Chromium also logs each
 * 4xx answer to `fetch` as a console error ("Failed to load resource"); the page handles those
 * (it shows the service's message), so they are kept apart in `answered4xx`. A 5xx, a script
 * error, a CSP violation or a `console.error` stays an error.
 */
export function watch(page: Page) {
  const errors: string[] = [];
  const answered4xx: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const line = `${m.text()} @ ${m.location()?.url ?? ""}`;
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) {
      answered4xx.push(line);
    } else errors.push(line);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e instanceof Error ? e.message : e}`));
  page.on("request", (r) => requests.push(r.url()));
  return { errors, answered4xx, requests };
}

export const text = (page: Page, sel: string) => page.$eval(sel, (e) => e.innerText.trim());

/**
 * Clicks the button labelled `label` inside `scope`, found and clicked in one step in the page:
 * the console re-renders its lists after each action, so a handle taken earlier may be detached.
 */
export async function clickLabeled(page: Page, scope: string, label: string): Promise<void> {
  const clicked = await page.$$eval(`${scope} button`, (buttons, l) => {
    const b = buttons.find((x) => x.textContent === l) as unknown as { click(): void } | undefined;
    b?.click();
    return b !== undefined;
  }, label);
  assert.ok(clicked, `a "${label}" button in ${scope}`);
}

/**
 * A new page of the service at `baseUrl` at a desktop size, its errors watched, signed in to the
 * org console with `token` (returned once the console shows).
 */
export async function openConsole(browser: Browser, baseUrl: string, token: string) {
  const page = await browser.newPage();
  const seen = watch(page);
  await page.setViewport({ width: 1000, height: 900, deviceScaleFactor: 1 });
  await page.goto(`${baseUrl}/`, { waitUntil: "networkidle0" });
  await page.type("#token", token);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#console:not([hidden])");
  return { page, seen };
}

/** Clicks the button labelled `label` inside `scope` and waits for the console's "Done: label.". */
export async function clickDone(page: Page, scope: string, label: string): Promise<void> {
  await clickLabeled(page, scope, label);
  await page.waitForFunction(
    (l) =>
      (globalThis as unknown as Win).document.getElementById("console-msg")!.textContent ===
        `Done: ${l}.`,
    {},
    label,
  );
}

export async function shot(page: Page, name: string) {
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.length > 1000);
  if (Deno.env.get("SCREENSHOTS") === "update") {
    await Deno.mkdir(SHOTS, { recursive: true });
    await Deno.writeFile(new URL(name, SHOTS), png);
  }
}
