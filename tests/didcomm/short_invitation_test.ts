/**
 * Short invitation links (as CREDEBL and Credo mediators hand out): `receive-invitation` with a URL
 * that has no `oob`/`c_i` fetches it once through the safe client. A JSON answer is the
 * invitation; a redirect is read for its location, never followed. A real link host on 127.0.0.1
 * and the real test peer as inviter.
 */
import assert from "node:assert/strict";
import { expectJson, serveLocal } from "../support/context.ts";
import { configureAgent, servedContext, waitFor } from "./helpers.ts";
import { startTestPeer } from "./test_peer.ts";

const ORG = "org-a";

Deno.test("short invitation links: JSON answer or redirect to ?oob= give a connection; anything else a clear 4xx/502", async () => {
  const ctx = await servedContext();
  const peer = await startTestPeer();
  ctx.services.dispatcher.start();
  const seen: { path: string; accept: string | null }[] = [];
  let followed = 0;
  const links = serveLocal((req) => {
    const path = new URL(req.url).pathname;
    seen.push({ path, accept: req.headers.get("accept") });
    switch (path) {
      case "/json":
        return Response.json(peer.invitation());
      case "/redirect":
        return new Response(null, {
          status: 302,
          headers: { location: peer.invitationUrl(peer.invitation()) },
        });
      case "/redirect-nowhere":
        return new Response(null, { status: 301, headers: { location: "/landing" } });
      case "/landing":
        followed++;
        return new Response("landing page");
      case "/html":
        return new Response("<html>Scan me</html>", { headers: { "content-type": "text/html" } });
      default:
        return new Response("gone", { status: 404 });
    }
  });
  try {
    await configureAgent(ctx, ORG, ctx.endpoint);
    const token = await ctx.token({ [ORG]: ["member"] });
    const receive = (invitationUrl: string) =>
      ctx.call("POST", `/orgs/${ORG}/connections/receive-invitation`, {
        token,
        body: { invitationUrl },
      });

    for (const path of ["/json", "/redirect"]) {
      const created = await expectJson(await receive(`${links.url}${path}`), 201);
      await waitFor(`connection from ${path} completed`, async () => {
        const r = await expectJson(
          await ctx.call("GET", `/orgs/${ORG}/connections/${created.id}`, { token }),
          200,
        );
        return r.state === "completed" || undefined;
      });
    }
    assert.ok(seen.every((s) => s.accept === "application/json"));

    const bad: [string, number, RegExp][] = [
      ["/redirect-nowhere", 400, /redirects \(301\) to a URL without oob or c_i/],
      ["/html", 400, /did not answer with JSON/],
      ["/missing", 400, /answered HTTP 404/],
    ];
    for (const [path, status, message] of bad) {
      const e = await expectJson(await receive(`${links.url}${path}`), status);
      assert.match(String(e.message), message, path);
    }
    assert.equal(followed, 0, "redirects are read, never followed");
    const down = await expectJson(await receive("http://127.0.0.1:9/short"), 502);
    assert.equal(down.error, "Bad Gateway");
    assert.match(String(down.message), /could not be read/);
  } finally {
    await links.close();
    await peer.close();
    await ctx.close();
  }
});
