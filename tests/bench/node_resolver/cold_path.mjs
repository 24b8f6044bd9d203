// Node.js side of tests/bench/cold_path_bench.ts: key-did-resolver 4.0.0 through did-resolver
// (cache off) on the keys of the given file; prints {"Ed25519": µs/key, ...} as JSON. Each set
// is resolved after its warm-up set, each key once.
import { readFileSync } from "node:fs";
import { Resolver } from "did-resolver";
import { getResolver } from "key-did-resolver";

const sets = JSON.parse(readFileSync(process.argv[2], "utf8"));
const resolver = new Resolver(getResolver(), { cache: false });

async function run(dids) {
  const t0 = performance.now();
  for (const did of dids) {
    const r = await resolver.resolve(did);
    if (r.didResolutionMetadata.error) throw new Error(`${did}: ${r.didResolutionMetadata.error}`);
  }
  return (performance.now() - t0) * 1000 / dids.length;
}

const out = {};
for (const name of ["Ed25519", "P-256", "secp256k1"]) {
  await run(sets[`warm:${name}`]);
  out[name] = await run(sets[name]);
}
console.log(JSON.stringify(out));
