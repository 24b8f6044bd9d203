// Load client of tests/bench/distinct_http.sh: GET /dids/<did> once for each DID of a file, with
// CONCURRENCY requests in flight on keep-alive connections; prints one JSON line: requests,
// non-200 answers, seconds, req/s. Usage: node distinct_client.mjs <baseUrl> <didFile> [concurrency] [token]
import http from "node:http";
import { readFileSync } from "node:fs";

const [base, file, conc = "32", token = ""] = process.argv.slice(2);
const dids = readFileSync(file, "utf8").split("\n").filter(Boolean);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(conc) });
const url = new URL(base);
let next = 0;
let bad = 0;
function get(did) {
  return new Promise((resolve, reject) => {
    const req = http.get({
      host: url.hostname,
      port: url.port,
      path: `/dids/${did}`,
      agent,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    }, (res) => {
      if (res.statusCode !== 200) bad++;
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
  });
}
async function worker() {
  while (next < dids.length) await get(dids[next++]);
}
const t0 = performance.now();
await Promise.all(Array.from({ length: Number(conc) }, worker));
const s = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    requests: dids.length,
    non200: bad,
    seconds: +s.toFixed(3),
    rps: Math.round(dids.length / s),
  }),
);
agent.destroy();
