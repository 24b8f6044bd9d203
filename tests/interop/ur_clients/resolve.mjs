// Resolves DIDs with a real Universal Resolver client given only a base URL, as its users do.
// Usage: node resolve.mjs <veramo|sphereon> <baseUrl> <did>...
// Prints one JSON object: {"<did>": {"result": <DIDResolutionResult>} | {"thrown": "<message>"}}.
import { getUniversalResolverFor } from "@veramo/did-resolver";
import { UniResolver } from "@sphereon/did-uni-client";
import { Resolver } from "did-resolver";

const [client, base, ...dids] = process.argv.slice(2);

let resolve;
if (client === "veramo") {
  const methods = [...new Set(dids.map((d) => d.split(":")[1] ?? "x"))];
  const resolver = new Resolver(getUniversalResolverFor(methods, `${base}/1.0/identifiers/`));
  resolve = (did) => resolver.resolve(did);
} else if (client === "sphereon") {
  const uni = new UniResolver();
  uni.setBaseURL(base);
  resolve = (did) => uni.resolve(did);
} else {
  console.error(`unknown client ${client}`);
  process.exit(2);
}

const out = {};
for (const did of dids) {
  try {
    out[did] = { result: await resolve(did) };
  } catch (err) {
    out[did] = { thrown: err instanceof Error ? err.message : String(err) };
  }
}
console.log(JSON.stringify(out));
