/**
 * Writes `n` distinct, valid Ed25519 did:key DIDs, one per line, for the wrk scripts
 * (`distinct_dids.lua`). `deno run -A tests/bench/did_list.ts <n> <file>`
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { encodeMultibaseKey } from "../../src/did/keys/multicodec.ts";

const [n, file] = Deno.args;
const lines: string[] = [];
for (let i = 0; i < Number(n); i++) {
  const pk = ed25519.getPublicKey(crypto.getRandomValues(new Uint8Array(32)));
  lines.push(`did:key:${encodeMultibaseKey("Ed25519", pk)}`);
}
await Deno.writeTextFile(file!, lines.join("\n") + "\n");
