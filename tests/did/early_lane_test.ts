/**
 * The early lane (src/did/lite.ts), which answers while `src/main.ts` loads the app: when it
 * answers, it answers byte for byte what the route answers; everything else it declines.
 */
import assert from "node:assert/strict";
import { ed25519 } from "@noble/curves/ed25519.js";
import { createEarlyLane } from "../../src/did/lite.ts";
import { encodeMultibaseKey } from "../../src/did/keys/multicodec.ts";
import { createTestContext } from "../support/context.ts";
import { laneRequest as get, snapshot } from "./lane_requests.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

Deno.test("early lane: a public Ed25519 did:key gets exactly the route's answer", async () => {
  const ctx = await createTestContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    const lane = createEarlyLane({ isPublic: true });
    const random = `did:key:${
      encodeMultibaseKey(
        "Ed25519",
        ed25519.getPublicKey(crypto.getRandomValues(new Uint8Array(32))),
      )
    }`;
    for (const did of [KEY_DID, random, encodeURIComponent(KEY_DID)]) {
      for (const prefix of ["/dids/", "/1.0/identifiers/"]) {
        for (
          const accept of [
            undefined,
            "application/did+json",
            "application/did+ld+json",
            "application/did-resolution",
            "*/*",
          ]
        ) {
          const headers: Record<string, string> = accept ? { accept } : {};
          const early = lane(get(prefix + did, { ...headers, "x-request-id": "abc" }));
          assert.ok(early, `${prefix}${did} ${accept}`);
          assert.equal(early.headers.get("x-request-id"), "abc");
          ctx.services.resolver.clearMemory();
          const routed = await ctx.app.request(prefix + did, { headers });
          assert.deepEqual(
            await snapshot(early),
            await snapshot(routed),
            `${prefix}${did} ${accept}`,
          );
        }
      }
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("early lane: declines what only the app answers", async () => {
  const lane = createEarlyLane({ isPublic: true });
  const declined = [
    get(`/dids/${KEY_DID}?noCache=true`),
    get(`/dids/${KEY_DID}`, { "cache-control": "no-cache" }),
    get(`/dids/${KEY_DID}`, {}, "POST"),
    get("/1.0/methods"),
    get(`/dids/${KEY_DID}%23z6Mk`),
    get(`/dids/did:key:${encodeMultibaseKey("Ed25519", new Uint8Array(32).fill(0xff))}`), // y ≥ p
    get("/dids/did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"), // secp256k1
    get("/dids/did:web:example.com"),
    get("/health"),
  ];
  for (const req of declined) assert.equal(lane(req), undefined, req.url);
  assert.equal(createEarlyLane({ isPublic: false })(get(`/dids/${KEY_DID}`)), undefined);

  // What needs nothing more it answers as the app does: an unacceptable Accept, a preflight.
  const ctx = await createTestContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    for (
      const req of [
        get(`/dids/${KEY_DID}`, { accept: "text/html" }),
        get(`/dids/${KEY_DID}`, { origin: "https://wallet.example" }, "OPTIONS"),
      ]
    ) {
      const early = lane(req.clone());
      assert.ok(early, `${req.method} ${req.url}`);
      assert.deepEqual(await snapshot(early), await snapshot(await ctx.app.request(req)));
    }
  } finally {
    await ctx.close();
  }
});
