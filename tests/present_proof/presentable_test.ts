/**
 * What the prover presents, with the service's real parts: the status check before a
 * presentation (the one `compose.ts` wires, against a real list host: revoked and suspended
 * credentials are never offered, and a revocation seen once stands while the list cannot be read,
 * also after a check that could not read it), and a credential whose issuer context comes from
 * `JSONLD_CONTEXT_ALLOW` (signed into the presentation with that context, which the verifier can
 * check).
 */
import assert from "node:assert/strict";
import { createDocumentLoader } from "../../src/credentials/jsonld/document_loader.ts";
import { entry, listCredential, listHost, testIssuer } from "../status/lists.ts";
import { expectJson } from "../support/context.ts";
import {
  acceptRequest,
  createProofContext,
  definition,
  presentationOf,
  proofOf,
  receiveRequest,
  requestMessage,
  sentOn,
  verifiesAt,
} from "./helpers.ts";

type Json = Record<string, unknown>;

Deno.test("before a presentation: revoked and suspended credentials (real status lists) are never offered; a revocation seen once stands while the list is down, also after a check stored unknown", async () => {
  let t = Date.now();
  const ctx = await createProofContext({ now: () => t });
  const host = listHost();
  try {
    const issuer = await testIssuer();
    const rev = host.url("/rev");
    const sus = host.url("/sus");
    host.serveJson("/rev", await listCredential({ url: rev, issuer, set: [2] }));
    host.serveJson(
      "/sus",
      await listCredential({ url: sus, issuer, purpose: "suspension", set: [3] }),
    );
    const store = (name: string, status: Json) =>
      ctx.store({ name }, {
        issuer,
        contexts: ["https://www.w3.org/ns/credentials/status/v1"],
        fields: { credentialStatus: status },
      });
    const valid = await store("Alice", entry(rev, 1));
    const revoked = await store("Mallory", entry(rev, 2));
    const suspended = await store("Sue", entry(sus, 3, "suspension"));

    /** The stored credentials a new request is offered, newest first. */
    const offered = async () => {
      const { rec } = await receiveRequest(ctx);
      return ((rec.inputDescriptors as Json[])[0]!.matches as Json[]).map((m) => m.credentialId);
    };
    assert.deepEqual(await offered(), [valid]);

    // The revocation is recorded; then the list host goes down and the cached lists age out.
    const checkPath = `/orgs/${ctx.orgId}/w3c-credentials/${revoked}/check-status`;
    const check = async () =>
      (await expectJson(await ctx.call("POST", checkPath, { token: ctx.member }), 200))
        .status as Json;
    assert.equal((await check()).state, "revoked");
    await host.close();
    t += 10 * 60_000; // past the lists' freshness (the DID cache TTL, 300 s)
    const later = await offered();
    assert.ok(!later.includes(revoked), "a recorded revocation stands while the list is down");
    assert.deepEqual(later, [suspended, valid], "unknown now, nothing recorded: still offered");

    // A check while the list is down keeps `unknown` (as CONTRACT.md says), and the revocation
    // seen before still keeps the credential out.
    assert.equal((await check()).state, "unknown");
    assert.ok(!(await offered()).includes(revoked), "a check that could not read the list");
  } finally {
    await host.close();
    await ctx.close();
  }
});

Deno.test("a credential with an issuer context from JSONLD_CONTEXT_ALLOW is presented, signed with that context", async () => {
  const vocab = { "@context": { nick: "https://example.org/vocab#nick" } };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () =>
      new Response(JSON.stringify(vocab), {
        headers: { "content-type": "application/ld+json" },
      }),
  );
  const base = `http://127.0.0.1:${server.addr.port}/`;
  const url = `${base}vocab/v1`;
  const ctx = await createProofContext({ env: { JSONLD_CONTEXT_ALLOW: base } });
  try {
    const loader = createDocumentLoader({ contexts: new Map([[url, vocab]]) });
    const id = await ctx.store({ name: "Alice", nick: "Ally" }, {
      contexts: [url],
      documentLoader: loader,
    });
    const req = requestMessage(definition(["nick", "$.credentialSubject.nick"]), {
      challenge: "c-ctx",
    });
    await ctx.receive(req);
    const rec = await proofOf(ctx, req["@id"]);
    assert.deepEqual(rec.selection, { nick: id });
    const accepted = await expectJson(await acceptRequest(ctx, rec.id), 200);
    assert.equal(accepted.state, "presentation-sent");
    const [msg] = sentOn(await ctx.flush(), req["@id"], "presentation");
    const vp = presentationOf(msg!);
    const contexts = new Map([[url, vocab]]);
    assert.equal(await verifiesAt(vp, { challenge: "c-ctx", contexts }), true);
  } finally {
    await ctx.close();
    await server.shutdown();
  }
});

Deno.test("accept-request of a credential whose context cannot be loaded now: 409 naming the context and JSONLD_CONTEXT_ALLOW when it is not allowed, 502 when its host is down; nothing sent", async () => {
  const vocab = { "@context": { nick: "https://example.org/vocab#nick" } };
  // A host that is down: a port that was just free.
  const probe = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${(probe.addr as Deno.NetAddr).port}/`;
  probe.close();
  const url = `${base}vocab/v1`;
  for (
    const [env, status, says] of [
      [{}, 409, "JSONLD_CONTEXT_ALLOW"],
      [{ JSONLD_CONTEXT_ALLOW: base }, 502, "could not be fetched"],
    ] as const
  ) {
    const ctx = await createProofContext({ env });
    try {
      // Stored while the context could be read (the loader of the issuer that signed it).
      const loader = createDocumentLoader({ contexts: new Map([[url, vocab]]) });
      await ctx.store({ name: "Alice", nick: "Ally" }, { contexts: [url], documentLoader: loader });
      const req = requestMessage(definition(["nick", "$.credentialSubject.nick"]), {
        challenge: "c-gone",
      });
      await ctx.receive(req);
      const rec = await proofOf(ctx, req["@id"]);
      const body = await expectJson(await acceptRequest(ctx, rec.id), status);
      assert.match(String(body.message), new RegExp(url.replaceAll(".", "\\.")));
      assert.match(String(body.message), new RegExp(says));
      assert.equal((await proofOf(ctx, req["@id"])).state, "request-received");
      assert.deepEqual(sentOn(await ctx.flush(), req["@id"], "presentation"), []);
    } finally {
      await ctx.close();
    }
  }
});
