/**
 * Cold path of did:key: a fresh document for a key never seen before, in process (no cache), ours
 * vs `key-did-resolver` 4.0.0 through `did-resolver` (cache off) in Node.js on the same keys.
 * Prints µs per key for each and the ratio; also our P-256, secp256k1 and did:peer:2 timings (and
 * Node's P-256 and secp256k1).
 *
 *   deno run -A tests/bench/cold_path_bench.ts [keys per set, default 5000] [rounds, default 3]
 *
 * Each round makes new random keys: a warm-up set (resolved first, so both runtimes have compiled
 * their code) and a measured set of the same size, each key resolved once. Node runs
 * `tests/bench/node_resolver/cold_path.mjs` on the same file (`npm install` there first).
 */
import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keyMethod } from "../../src/did/methods/key.ts";
import { createPeerDid2, createPeerMethod } from "../../src/did/methods/peer.ts";
import { encodeMultibaseKey } from "../../src/did/keys/multicodec.ts";
import { parseDid } from "../../src/did/syntax.ts";
import type { DidMethod } from "../../src/did/types.ts";

const N = Number(Deno.args[0] ?? 5000);
const ROUNDS = Number(Deno.args[1] ?? 3);
const rand = () => crypto.getRandomValues(new Uint8Array(32));

type Sets = Record<string, string[]>;

function makeSets(): Sets {
  const ed = () => `did:key:${encodeMultibaseKey("Ed25519", ed25519.getPublicKey(rand()))}`;
  const p = () => `did:key:${encodeMultibaseKey("P-256", p256.getPublicKey(rand(), true))}`;
  const k = () =>
    `did:key:${encodeMultibaseKey("secp256k1", secp256k1.getPublicKey(rand(), true))}`;
  const peer = () =>
    createPeerDid2({
      authentication: [ed25519.getPublicKey(rand())],
      keyAgreement: [x25519.getPublicKey(rand())],
      services: [{ type: "did-communication", serviceEndpoint: "https://agent.example/didcomm" }],
    });
  const sets: Sets = {};
  for (const [name, make] of [["Ed25519", ed], ["P-256", p], ["secp256k1", k], ["peer2", peer]]) {
    sets[`warm:${name}`] = Array.from({ length: N }, make as () => string);
    sets[name as string] = Array.from({ length: N }, make as () => string);
  }
  return sets;
}

const peerMethod = createPeerMethod();

async function ours(dids: string[], method: DidMethod): Promise<number> {
  const t0 = performance.now();
  for (const did of dids) {
    const r = await method.resolve(parseDid(did)!, {});
    if (r.didResolutionMetadata.error) {
      throw new Error(`${did}: ${r.didResolutionMetadata.message}`);
    }
  }
  return (performance.now() - t0) * 1000 / dids.length;
}

const results: Record<string, number[]> = {};
const add = (k: string, v: number) => (results[k] ??= []).push(v);
const file = await Deno.makeTempFile({ suffix: ".json" });
for (let round = 0; round < ROUNDS; round++) {
  const sets = makeSets();
  await Deno.writeTextFile(file, JSON.stringify(sets));
  for (const name of ["Ed25519", "P-256", "secp256k1", "peer2"]) {
    const method = name === "peer2" ? peerMethod : keyMethod;
    await ours(sets[`warm:${name}`]!, method);
    add(`ours ${name}`, await ours(sets[name]!, method));
  }
  const node = await new Deno.Command("node", {
    args: ["tests/bench/node_resolver/cold_path.mjs", file],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!node.success) throw new Error("the Node.js run failed");
  for (const [k, v] of Object.entries(JSON.parse(new TextDecoder().decode(node.stdout)))) {
    add(`node ${k}`, v as number);
  }
}
await Deno.remove(file);

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const nodeVersion = new TextDecoder().decode(
  (await new Deno.Command("node", { args: ["--version"] }).output()).stdout,
).trim();
console.log(
  `${N} fresh keys per set, median of ${ROUNDS} rounds; deno ${Deno.version.deno}, node ${nodeVersion}`,
);
for (const k of Object.keys(results).sort()) {
  console.log(`  ${k.padEnd(20)} ${median(results[k]!).toFixed(1).padStart(8)} µs/key`);
}
for (const name of ["Ed25519", "P-256", "secp256k1"]) {
  const o = results[`ours ${name}`], n = results[`node ${name}`];
  if (o && n) {
    const ratio = median(n) / median(o);
    console.log(
      `${name}: key-did-resolver / ours = ${ratio.toFixed(2)}x` +
        (name === "Ed25519" ? ` (target >= 3x: ${ratio >= 3 ? "ok" : "MISSED"})` : ""),
    );
  }
}
