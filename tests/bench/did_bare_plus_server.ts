/**
 * For tests/bench/did_wrk.sh: the ceiling with the route's HTTP duties. Like did_bare_server.ts a
 * bare `Deno.serve` answering `GET /dids/<did>` with our service's bytes, but it also does what
 * a warm answer needs and nothing else: reads the bearer token and looks it up in a Map of accepted
 * tokens (401 otherwise), reads `Accept`, `Cache-Control` and `x-request-id` (echoed when sent, as
 * the service's fast lane does), and answers with the service's headers (`content-type`,
 * `cache-control`, `vary` as the service sent them, read from `<file>.headers` written by
 * `curl -D`). The gap between this server and the
 * bare one is the cost of those duties in the runtime; the gap between it and the service is
 * ours.
 * Usage: deno run -A did_bare_plus_server.ts <port> <token> <did1> <file1> [<did2> <file2> ...]
 */
const [portArg, token, ...pairs] = Deno.args;
const tokens = new Map<string, { sub: string }>([[token!, { sub: "bench-user" }]]);
const prepared = new Map<string, Response>();
const KEPT = new Set(["content-type", "cache-control", "vary"]);
for (let i = 0; i + 1 < pairs.length; i += 2) {
  const file = pairs[i + 1]!;
  const headers: [string, string][] = [];
  for (const line of Deno.readTextFileSync(`${file}.headers`).split("\r\n")) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).toLowerCase();
    if (colon > 0 && KEPT.has(name)) headers.push([name, line.slice(colon + 1).trim()]);
  }
  prepared.set(`/dids/${pairs[i]}`, new Response(Deno.readFileSync(file), { headers }));
}
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
Deno.serve({ port: Number(portArg), hostname: "127.0.0.1", onListen: () => {} }, (req) => {
  if (req.method !== "GET") return new Response("method", { status: 405 });
  const url = req.url;
  const headers = req.headers;
  const auth = headers.get("authorization");
  if (auth === null || !auth.startsWith("Bearer ") || !tokens.has(auth.slice(7))) {
    return new Response("unauthorized", { status: 401 });
  }
  if (headers.has("cache-control") || (headers.get("accept") ?? "").length > 1024) {
    return new Response("not here", { status: 400 });
  }
  const given = headers.get("x-request-id");
  const p = prepared.get(url.slice(url.indexOf("/", 8)));
  if (p === undefined) return new Response("not found", { status: 404 });
  const res = p.clone();
  // Like the service's fast lane: a caller's id is echoed; none is made for an unlogged answer.
  if (given !== null) {
    res.headers.set("x-request-id", SAFE_ID.test(given) ? given : crypto.randomUUID());
  }
  return res;
});
