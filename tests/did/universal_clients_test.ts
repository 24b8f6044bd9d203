/**
 * Two real Universal Resolver clients, given only this service's base URL, against the served app
 * (a real HTTP server on 127.0.0.1): `@veramo/did-resolver` 7.0.1 (`getUniversalResolverFor`, used
 * through `did-resolver` 4.1.0's `Resolver`) and `@sphereon/did-uni-client` 0.6.4 (`UniResolver`).
 * They run in Node.js as their users run them (`tests/interop/ur_clients/resolve.mjs`; @veramo/utils
 * imports an undeclared `@noble/hashes` 1.x that Deno's npm resolution would not give it). Neither
 * sends a token, so resolution is public here (`DID_RESOLUTION_PUBLIC=true`).
 */
import assert from "node:assert/strict";
import { servedContext } from "../didcomm/helpers.ts";
import { UR_CLIENTS_DIR, urClientsInterop } from "../interop/availability.ts";
import { didHost, json, webDoc } from "./did_host.ts";

const EXAMPLES = {
  key: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
  jwk:
    "did:jwk:eyJjcnYiOiJQLTI1NiIsImt0eSI6IkVDIiwieCI6ImFjYklRaXVNczNpOF91c3pFakoydHBUdFJNNEVVM3l6OTFQSDZDZEgyVjAiLCJ5IjoiX0tjeUxqOXZXTXB0bm1LdG00NkdxRHo4d2Y3NEk1TEtncmwyR3pIM25TRSJ9",
  peer:
    "did:peer:2.Vz6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V.Ez6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc.Vz6MkgoLTnTypo3tDRwCkZXSccTPHRLhF4ZnjhueYAFpEX6vg.SeyJzIjp7InVyaSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vZW5kcG9pbnQiLCJyb3V0aW5nS2V5cyI6WyJkaWQ6ZXhhbXBsZTpzb21lbWVkaWF0b3Ijc29tZWtleSJdLCJhY2NlcHQiOlsiZGlkY29tbS92MiIsImRpZGNvbW0vYWlwMjtlbnY9cmZjNTg3Il19LCJ0IjoiZG0ifQ",
};
/** Passes did-resolver's own syntax check, so it reaches the service, which finds it invalid. */
const BAD_DID = "did:key:z6MkBADBADBAD";

type Outcome = {
  result?: {
    didDocument: { id: string; verificationMethod?: unknown[] } | null;
    didResolutionMetadata: { error?: string };
  };
  thrown?: string;
};

/** Runs a client in Node.js over `dids`; its answer per DID. */
async function runClient(
  client: "veramo" | "sphereon",
  base: string,
  dids: string[],
): Promise<Record<string, Outcome>> {
  const out = await new Deno.Command("node", {
    args: ["resolve.mjs", client, base, ...dids],
    cwd: UR_CLIENTS_DIR,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${client} client failed: ${new TextDecoder().decode(out.stderr)}${text}`);
  }
  return JSON.parse(text);
}

async function withService(fn: (base: string, dids: Record<string, string>) => Promise<void>) {
  const host = didHost({ "/.well-known/did.json": (_req, did) => json(webDoc(did)) });
  const ctx = await servedContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    await fn(ctx.baseUrl, { ...EXAMPLES, web: host.did });
  } finally {
    await ctx.close();
    await host.close();
  }
}

Deno.test({
  name:
    "@veramo/did-resolver 7.0.1 given the base URL resolves did:key, did:jwk, did:peer:2, did:web",
  ...urClientsInterop,
  fn: () =>
    withService(async (base, dids) => {
      const all = await runClient("veramo", base, [...Object.values(dids), BAD_DID, "not-a-did"]);
      for (const [method, did] of Object.entries(dids)) {
        const r = all[did]!.result!;
        assert.equal(r.didResolutionMetadata.error, undefined, `${method}: ${JSON.stringify(r)}`);
        assert.equal(r.didDocument?.id, did, method);
        assert.ok((r.didDocument?.verificationMethod ?? []).length > 0, method);
      }
      // Our invalidDid result, as the client hands it on.
      assert.equal(all[BAD_DID]!.result!.didResolutionMetadata.error, "invalidDid");
      assert.equal(all[BAD_DID]!.result!.didDocument, null);
      // did-resolver's own syntax check answers for what it cannot even parse.
      assert.equal(all["not-a-did"]!.result!.didResolutionMetadata.error, "invalidDid");
    }),
});

Deno.test({
  name:
    "@sphereon/did-uni-client 0.6.4 given the base URL resolves did:key, did:jwk, did:peer:2, did:web",
  ...urClientsInterop,
  fn: () =>
    withService(async (base, dids) => {
      const all = await runClient("sphereon", base, [...Object.values(dids), BAD_DID, "not-a-did"]);
      for (const [method, did] of Object.entries(dids)) {
        const r = all[did]!.result!;
        assert.ok(r, `${method}: ${JSON.stringify(all[did])}`);
        assert.equal(r.didResolutionMetadata.error, undefined, `${method}: ${JSON.stringify(r)}`);
        assert.equal(r.didDocument?.id, did, method);
      }
      // The client throws with the body of a 4xx answer: our invalidDid resolution result.
      const thrown = all[BAD_DID]!.thrown;
      assert.ok(thrown, JSON.stringify(all[BAD_DID]));
      const body = JSON.parse(thrown);
      assert.equal(body.didResolutionMetadata.error, "invalidDid");
      assert.equal(body.didDocument, null);
      assert.equal(all["not-a-did"]!.result!.didResolutionMetadata.error, "invalidDid");
    }),
});
