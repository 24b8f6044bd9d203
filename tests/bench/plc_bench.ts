/**
 * did:plc: a 10-operation audit log (`plc_log_10.json`: genesis and nine updates, written by
 * `@did-plc/lib` in `tests/interop/plc_peer`, secp256k1 rotation key) served by a local directory.
 * - verify: read the log, verify all 10 operations (CIDs, genesis hash, 10 low-S ECDSA
 *   signatures, the chain) and render the document, no HTTP;
 * - cold: `noCache`, so each iteration fetches the log from the local directory and verifies it;
 * - warm: a cache hit of the caching resolver;
 * - first resolution in a process (loading the verifier) is printed once, before the runs.
 * Run: `deno bench --allow-all tests/bench/plc_bench.ts`
 */
import { isDeepStrictEqual } from "node:util";
import { plcDocument, readAuditLog, verifyPlcLog } from "../../src/did/methods/plc/mod.ts";
import { plcDirectory } from "../did/plc_directory.ts";
import { createTestContext } from "../support/context.ts";

const fixture = JSON.parse(Deno.readTextFileSync(new URL("./plc_log_10.json", import.meta.url)));
const did: string = fixture.did;
if (fixture.auditLog.length !== 10) throw new Error("expected a 10-operation log");

const dir = plcDirectory({ logs: { [did]: fixture.auditLog } });
const ctx = await createTestContext({
  env: { DID_PLC_DIRECTORY_URL: dir.url, DID_CACHE_TTL_SECONDS: "86400" },
});
const resolver = ctx.services.resolver;
const t0 = performance.now();
const first = await resolver.resolve(did, { noCache: true });
const firstMs = performance.now() - t0;
if (!isDeepStrictEqual(first.didDocument, fixture.document)) {
  throw new Error(`not the reference document: ${JSON.stringify(first)}`);
}
console.log(
  `first did:plc resolution in this process (loads the verifier): ${firstMs.toFixed(1)} ms`,
);
await resolver.resolve(did);

/** The verification alone, as the method runs it. */
function verify() {
  const read = readAuditLog(fixture.auditLog);
  if (!read.ok) throw new Error(read.message);
  const checked = verifyPlcLog(did, read.entries);
  if (!checked.ok) throw new Error(checked.failure.message);
  const last = checked.log.chain.at(-1)!.operation;
  if (last.type === "plc_tombstone") throw new Error("tombstoned");
  return plcDocument(did, last);
}

Deno.bench("did:plc verify a 10-operation log (no HTTP)", { group: "plc", baseline: true }, () => {
  verify();
});
Deno.bench("did:plc cold (fetch + verify 10 operations)", { group: "plc" }, async () => {
  const r = await resolver.resolve(did, { noCache: true });
  if (r.didDocument === null) throw new Error("not resolved");
});
Deno.bench("did:plc warm (cache hit)", { group: "plc" }, async () => {
  await resolver.resolve(did);
});

globalThis.addEventListener("unload", () => {
  void dir.close();
  void ctx.close();
});
