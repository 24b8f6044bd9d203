// Comparison server for tests/bench/did_wrk.sh: plain Node.js `http` + did-resolver with its
// in-memory cache on (`cache: true`), key-did-resolver and web-did-resolver, as a user would wire
// them. GET /dids/{did} → the DidResolutionResult as JSON. It does not check the bearer token
// (that only makes it faster than a real deployment). Same path rule as the service: a segment
// starting with did%3A is decoded once, anything else is used as written.
import http from "node:http";
import { Resolver } from "did-resolver";
import { getResolver as keyDidResolver } from "key-did-resolver";
import { getResolver as webDidResolver } from "web-did-resolver";

const resolver = new Resolver({ ...keyDidResolver(), ...webDidResolver() }, { cache: true });
const port = Number(process.env.PORT ?? 8092);

const STATUS = {
  invalidDid: 400,
  notFound: 404,
  methodNotSupported: 501,
  representationNotSupported: 406,
};

http.createServer(async (req, res) => {
  const url = req.url ?? "/";
  if (!url.startsWith("/dids/")) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"statusCode":404,"error":"Not Found"}');
    return;
  }
  let segment = url.slice(6);
  const q = segment.indexOf("?");
  if (q >= 0) segment = segment.slice(0, q);
  if (segment.toLowerCase().startsWith("did%3a")) segment = decodeURIComponent(segment);
  try {
    const result = await resolver.resolve(segment);
    const error = result.didResolutionMetadata?.error;
    res.writeHead(error ? STATUS[error] ?? 500 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(result));
  } catch (err) {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: String(err) }));
  }
}).listen(port, "127.0.0.1", () => console.log(`node resolver on http://127.0.0.1:${port}`));
