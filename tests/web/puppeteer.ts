/**
 * puppeteer-core, loaded at run time (`tests/support/test_deps.ts` says why it is not imported
 * statically), and the part of its API the browser tests use, typed here. Add a method below when
 * a test needs one; the names and shapes are puppeteer's own.
 */
import { importTestDep } from "../support/test_deps.ts";

/** An element as page callbacks see it (the DOM library is not part of this Deno program). */
export interface PageElement {
  id: string;
  tagName: string;
  innerText: string;
  textContent: string | null;
  value: string;
  getAttribute(name: string): string | null;
  click(): void;
  blur(): void;
}

/** A handle to an element of the page. */
export interface ElementHandle {
  click(): Promise<void>;
  type(text: string): Promise<void>;
  evaluate<R>(fn: (el: PageElement) => R): Promise<Awaited<R>>;
  dispose(): Promise<void>;
}

/** A response the page received. */
export interface HTTPResponse {
  status(): number;
  url(): string;
  headers(): Record<string, string>;
}

/** A request the page made. */
export interface HTTPRequest {
  url(): string;
  method(): string;
}

/** A console message of the page. */
export interface ConsoleMessage {
  type(): string;
  text(): string;
  location(): { url?: string };
}

/** Timeouts of the waits, in ms. */
export interface WaitOptions {
  timeout?: number;
}

/** Where navigation is considered done. */
export interface GotoOptions extends WaitOptions {
  waitUntil?: "load" | "domcontentloaded" | "networkidle0" | "networkidle2";
}

/** A browser tab. */
export interface Page {
  goto(url: string, options?: GotoOptions): Promise<HTTPResponse | null>;
  reload(options?: GotoOptions): Promise<HTTPResponse | null>;
  setViewport(v: { width: number; height: number; deviceScaleFactor?: number }): Promise<void>;
  on(event: "console", handler: (message: ConsoleMessage) => void): Page;
  on(event: "pageerror", handler: (error: unknown) => void): Page;
  on(event: "request", handler: (request: HTTPRequest) => void): Page;
  on(event: "response", handler: (response: HTTPResponse) => void): Page;
  click(selector: string): Promise<void>;
  focus(selector: string): Promise<void>;
  hover(selector: string): Promise<void>;
  type(selector: string, text: string, options?: { delay?: number }): Promise<void>;
  select(selector: string, ...values: string[]): Promise<string[]>;
  keyboard: {
    press(key: string): Promise<void>;
    type(text: string): Promise<void>;
    down(key: string): Promise<void>;
    up(key: string): Promise<void>;
  };
  $(selector: string): Promise<ElementHandle | null>;
  $$(selector: string): Promise<ElementHandle[]>;
  $eval<A extends unknown[], R>(
    selector: string,
    fn: (el: PageElement, ...args: A) => R,
    ...args: A
  ): Promise<Awaited<R>>;
  $$eval<A extends unknown[], R>(
    selector: string,
    fn: (els: PageElement[], ...args: A) => R,
    ...args: A
  ): Promise<Awaited<R>>;
  evaluate<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): Promise<Awaited<R>>;
  waitForFunction<A extends unknown[]>(
    fn: (...args: A) => unknown,
    options?: WaitOptions & { polling?: "raf" | "mutation" | number },
    ...args: A
  ): Promise<unknown>;
  waitForSelector(
    selector: string,
    options?: WaitOptions & { visible?: boolean; hidden?: boolean },
  ): Promise<ElementHandle | null>;
  waitForNavigation(options?: GotoOptions): Promise<HTTPResponse | null>;
  screenshot(options?: { fullPage?: boolean }): Promise<Uint8Array>;
  url(): string;
  title(): Promise<string>;
  content(): Promise<string>;
  close(): Promise<void>;
}

/** A running browser. */
export interface Browser {
  newPage(): Promise<Page>;
  cookies(): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Launch options (puppeteer's `LaunchOptions`, the part the tests set). */
export interface LaunchOptions {
  executablePath: string;
  headless?: boolean;
  userDataDir?: string;
  args?: string[];
}

/** `puppeteer.launch` of the pinned puppeteer-core. */
export async function launchBrowser(options: LaunchOptions): Promise<Browser> {
  const mod = await importTestDep("puppeteer-core") as {
    default: { launch(options: LaunchOptions): Promise<Browser> };
  };
  return await mod.default.launch(options);
}
