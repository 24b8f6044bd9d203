/**
 * Contexts from `JSONLD_CONTEXT_ALLOW` prefixes: fetched once from a real local host through the
 * safe outbound client, kept in KV (a second store on the same database, as another process,
 * never fetches), refused from elsewhere with a message naming the context and the setting; a
 * credential that uses such a context, and one with a `credentialStatus`, verify.
 */
import assert from "node:assert/strict";
import { ContextStore } from "../../../src/credentials/jsonld/context_store.ts";
import {
  createDocumentLoader,
  JsonLdLoaderError,
} from "../../../src/credentials/jsonld/document_loader.ts";
import { signCredential } from "../../../src/credentials/jsonld/sign.ts";
import { verifyCredential } from "../../../src/credentials/jsonld/verify.ts";
import { createSafeFetch } from "../../../src/outbound/mod.ts";
import { didKeyIdentity, resolveDidKey, sampleCredential } from "./test_keys.ts";

const VOCAB = { "@context": { nick: "https://example.org/vocab#nick" } };
const safeFetch = createSafeFetch({ allowPrivate: true, requireHttps: false });

/** A real context host counting its requests; `body` may be changed by the test. */
function contextHost() {
  let hits = 0;
  let body = JSON.stringify(VOCAB);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => {
    hits++;
    return new Response(body, { headers: { "content-type": "application/ld+json" } });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}/`,
    hits: () => hits,
    setBody: (b: string) => (body = b),
    close: () => server.shutdown(),
  };
}

Deno.test("an allowed context is fetched once, kept in KV and never fetched again (also by another process)", async () => {
  const host = contextHost();
  const kv = await Deno.openKv(":memory:");
  try {
    const url = `${host.base}vocab/v1`;
    const store = new ContextStore({ kv, safeFetch, allow: [host.base] });
    const [a, b] = await Promise.all([store.load(url), store.load(url)]);
    assert.deepEqual(a, VOCAB);
    assert.deepEqual(b, VOCAB);
    assert.equal(host.hits(), 1, "concurrent loads share one fetch");
    host.setBody(JSON.stringify({ "@context": { nick: "https://evil.example/nick" } }));
    const other = new ContextStore({ kv, safeFetch, allow: [host.base] });
    assert.deepEqual(await other.load(url), VOCAB, "another process reads the kept copy");
    assert.equal(host.hits(), 1);
    assert.equal((await kv.get(["jsonld_context", url])).value !== null, true);
  } finally {
    kv.close();
    await host.close();
  }
});

Deno.test("a context from elsewhere is refused naming the context and JSONLD_CONTEXT_ALLOW; nothing is fetched", async () => {
  const host = contextHost();
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new ContextStore({ kv, safeFetch, allow: ["https://contexts.example.org/"] });
    const url = `${host.base}vocab/v1`;
    await assert.rejects(store.load(url), (e: unknown) => {
      assert.ok(e instanceof JsonLdLoaderError);
      assert.equal(e.code, "unknown_context");
      assert.match(e.message, new RegExp(`${url}.*JSONLD_CONTEXT_ALLOW`));
      return true;
    });
    // A prefix is matched on the parsed URL: userinfo tricks do not pass.
    const tricky = new ContextStore({ kv, safeFetch, allow: [host.base] });
    await assert.rejects(
      tricky.load(`${host.base.slice(0, -1)}@evil.example/ctx`),
      JsonLdLoaderError,
    );
    assert.equal(host.hits(), 0);
  } finally {
    kv.close();
    await host.close();
  }
});

Deno.test("an allowed context that is too large, not JSON or not a context is refused and not kept", async () => {
  const host = contextHost();
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new ContextStore({ kv, safeFetch, allow: [host.base], maxBytes: 1000 });
    const cases: [string, RegExp][] = [
      [JSON.stringify({ "@context": { x: "https://e.org/".repeat(100) } }), /could not be fetched/],
      ["<html>", /is not JSON/],
      [JSON.stringify({ hello: "world" }), /no "@context"/],
    ];
    for (const [i, [body, why]] of cases.entries()) {
      host.setBody(body);
      const url = `${host.base}c${i}`;
      await assert.rejects(store.load(url), (e: unknown) => {
        assert.ok(e instanceof JsonLdLoaderError);
        assert.equal(e.code, "context_unavailable");
        assert.match(e.message, why);
        return true;
      });
      assert.equal((await kv.get(["jsonld_context", url])).value, null);
    }
  } finally {
    kv.close();
    await host.close();
  }
});

Deno.test("a credential using an allowed issuer context and a BitstringStatusListEntry verifies", async () => {
  const host = contextHost();
  const kv = await Deno.openKv(":memory:");
  try {
    const url = `${host.base}vocab/v1`;
    const store = new ContextStore({ kv, safeFetch, allow: [host.base] });
    const issuer = didKeyIdentity();
    const credential = sampleCredential(issuer.did);
    credential["@context"] = [
      "https://www.w3.org/2018/credentials/v1",
      "https://www.w3.org/ns/credentials/status/v1",
      url,
      { name: "https://schema.org/name", degree: "https://schema.org/degree" },
    ];
    (credential.credentialSubject as Record<string, unknown>).nick = "al";
    credential.credentialStatus = {
      id: "https://status.example/lists/1#7",
      type: "BitstringStatusListEntry",
      statusPurpose: "revocation",
      statusListIndex: "7",
      statusListCredential: "https://status.example/lists/1",
    };
    const signed = await signCredential(credential, {
      keyPair: issuer.keyPair,
      suite: "Ed25519Signature2018",
      documentLoader: createDocumentLoader({ resolveDid: resolveDidKey, remote: store }),
    });
    const result = await verifyCredential(signed, { resolveDid: resolveDidKey, contexts: store });
    assert.equal(result.verified, true, result.error);
    const without = await verifyCredential(signed, { resolveDid: resolveDidKey });
    assert.equal(without.verified, false);
    assert.match(without.error ?? "", /JSONLD_CONTEXT_ALLOW/);
    assert.equal(host.hits(), 1);
  } finally {
    kv.close();
    await host.close();
  }
});
