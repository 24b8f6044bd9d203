/**
 * For tests/bench/did_wrk.sh: the ceiling. A bare `Deno.serve` that answers `GET /dids/<did>`
 * with the bytes our service returned for that DID (read from files captured by the script).
 * Usage: deno run -A did_bare_server.ts <port> <did1> <file1> [<did2> <file2> ...]
 */
const [portArg, ...pairs] = Deno.args;
const bodies = new Map<string, Uint8Array>();
for (let i = 0; i + 1 < pairs.length; i += 2) {
  bodies.set(`/dids/${pairs[i]}`, Deno.readFileSync(pairs[i + 1]!));
}
const headers = { "content-type": "application/json" };
Deno.serve({ port: Number(portArg), hostname: "127.0.0.1", onListen: () => {} }, (req) => {
  const url = req.url;
  const body = bodies.get(url.slice(url.indexOf("/", 8)));
  return body
    ? new Response(body as Uint8Array<ArrayBuffer>, { headers })
    : new Response("not found", { status: 404 });
});
