/**
 * did:pkh needs no network and no chain peer (CONTRACT "DID method plug-ins"): a namespace the
 * driver does not support, or an account id it cannot read, is 400 `invalidDid` through `/dids`
 * and `/1.0/identifiers`, whatever peers are installed; a supported one resolves. (The comparison
 * with pkh-did-resolver's own answers in Node.js is `pkh_test.ts`.)
 */
import assert from "node:assert/strict";
import { createTestContext, expectJson } from "../support/context.ts";

const UNSUPPORTED = [
  "did:pkh:solana:4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZ:CKg5d12Jhpej1JqtmxLJgaFqqeYjxgPqToJ4LBdvG9Ev",
  "did:pkh:eip155",
];

Deno.test("did:pkh: other namespaces and unreadable account ids are 400 invalidDid; eip155 resolves", async () => {
  const ctx = await createTestContext();
  try {
    const token = await ctx.token();
    for (const did of UNSUPPORTED) {
      for (const prefix of ["/dids/", "/1.0/identifiers/"]) {
        const body = await expectJson(await ctx.call("GET", prefix + did, { token }), 400);
        const meta = body.didResolutionMetadata as { error: string; message?: string };
        assert.equal(meta.error, "invalidDid", `${prefix}${did}: ${meta.message}`);
        assert.equal(body.didDocument, null);
      }
    }
    const ok = "did:pkh:eip155:1:0xb9c5714089478a327f09197987f16f9e5d936e8a";
    const body = await expectJson(await ctx.call("GET", `/dids/${ok}`, { token }), 200);
    assert.equal((body.didDocument as { id: string }).id, ok);
  } finally {
    await ctx.close();
  }
});
