import { Hono } from "hono";
import { createRequire } from "node:module";
import type { AppEnv } from "./env.ts";
import { Lru } from "../base/mod.ts";

const require = createRequire(import.meta.url);
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SSI edge service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/docs/assets/favicon-32x32.png"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script></body></html>`;

const INIT =
  `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", deepLinking: true });`;

/** `GET /docs`: Swagger UI with its assets served from the swagger-ui-dist npm package (no CDN). */
export function docsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const cache = new Lru<Uint8Array>(Object.keys(ASSETS).length);
  app.get("/docs", (c) => c.html(PAGE));
  app.get(
    "/docs/assets/init.js",
    (c) => c.body(INIT, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );
  app.get("/docs/assets/:file", async (c) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return c.notFound();
    let bytes = cache.get(file);
    if (!bytes) {
      bytes = await Deno.readFile(require.resolve(`swagger-ui-dist/${file}`));
      cache.set(file, bytes);
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      "content-type": type,
      "cache-control": "public, max-age=86400",
    });
  });
  return app;
}
