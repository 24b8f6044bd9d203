/**
 * `GET /` (the resolver page and org console) and its assets under `/web/`, served from the files
 * in `page/` (CONTRACT "Web pages"). No CDN and no build step: the files are read once and kept.
 * A strict Content-Security-Policy: scripts, styles and requests of this origin only, no inline
 * script or style, no frames, no form targets; nothing is ever sent to another host.
 *
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/mod.ts";
import { Lru } from "../base/mod.ts";

/** The page's Content-Security-Policy. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/web/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/web/offers.js": { file: "offers.js", type: "text/javascript; charset=utf-8" },
  "/web/presentations.js": { file: "presentations.js", type: "text/javascript; charset=utf-8" },
  "/web/proofs.js": { file: "proofs.js", type: "text/javascript; charset=utf-8" },
  "/web/resolver.js": { file: "resolver.js", type: "text/javascript; charset=utf-8" },
  "/web/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

const SECURITY_HEADERS = {
  "content-security-policy": PAGE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** The page routes (public: the page holds no data; its requests carry the person's token). */
export function webRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const cache = new Lru<Uint8Array>(Object.keys(FILES).length);
  for (const [path, { file, type }] of Object.entries(FILES)) {
    app.get(path, async (c) => {
      let bytes = cache.get(file);
      if (bytes === undefined) {
        bytes = await Deno.readFile(new URL(`./page/${file}`, import.meta.url));
        cache.set(file, bytes);
      }
      return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
        ...SECURITY_HEADERS,
        "content-type": type,
        // Revalidated on every load, so a deploy shows at once.
        "cache-control": "no-cache",
      });
    });
  }
  return app;
}
