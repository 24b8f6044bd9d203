// The JSON control API server of the interop peers (credo_peer, oid4vc_peer): the tests drive a
// peer through it. It imports only Node.js itself; each peer says which errors mean "no such
// record" (its own `@credo-ts/core`'s RecordNotFoundError).

import { createServer } from "node:http";

/** The request's JSON body ({} when empty); throws a SyntaxError when it is not JSON. */
async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  return text.trim() === "" ? {} : JSON.parse(text);
}

/**
 * Serves `handle(method, path, body, searchParams)` → `{status, body}` as JSON on 127.0.0.1:`port`
 * (0: a free port). An error it throws answers `{error: message}`: 404 when `isNotFound(error)`,
 * 400 for a body that is not JSON, else 500 (logged to stderr). `onListening(server)` runs once it
 * listens (the peer prints its READY line there). Returns the server.
 */
export function serveControlApi({ port, handle, isNotFound, onListening }) {
  const server = createServer(async (req, res) => {
    let status = 500;
    let body;
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      ({ status, body } = await handle(
        req.method ?? "GET",
        url.pathname,
        await readJson(req),
        url.searchParams,
      ));
    } catch (error) {
      status = isNotFound(error) ? 404 : error instanceof SyntaxError ? 400 : 500;
      body = { error: error instanceof Error ? error.message : String(error) };
      if (status === 500) console.error("control API error", error);
    }
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  server.listen(port, "127.0.0.1", () => onListening(server));
  return server;
}

/**
 * Serves a peer's control API ({@link serveControlApi}) and owns the peer's stopping. Once it
 * listens it prints `READY {json}`: `ready(server)` followed by `startupMs` (since the process
 * started, imports included) and `rssMb`. The returned `stop()` (for the API's `/stop`; also on
 * SIGTERM and SIGINT) runs once: closes the control server, awaits `close()` (the peer's own
 * servers and agent), exits 0.
 */
export function servePeer({ port, handle, isNotFound, ready, close }) {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    await close();
    process.exit(0);
  };
  const server = serveControlApi({
    port,
    handle,
    isNotFound,
    onListening: (listening) => {
      const line = {
        ...ready(listening),
        startupMs: Math.round(performance.now()),
        rssMb: Math.round(process.memoryUsage().rss / 1048576),
      };
      process.stdout.write(`READY ${JSON.stringify(line)}\n`);
    },
  });
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return stop;
}
