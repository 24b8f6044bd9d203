import assert from "node:assert/strict";
import { keys } from "../../src/kv/keys.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import type { StoredExchange } from "../../src/issue_credential/record.ts";
import { didKeyIdentity } from "../credentials/jsonld/test_keys.ts";
import {
  createCredentialContext,
  type CredentialContext,
  exchangeToCredentialReceived,
  issueMessage,
  offeredCredential,
  offerMessage,
} from "./helpers.ts";

type Json = Record<string, unknown>;

/** All records of the org with their versionstamps. */
async function snapshot(ctx: CredentialContext) {
  const out: [string, string][] = [];
  for await (const e of ctx.kv.list({ prefix: keys.credentialPrefix(ctx.orgId) })) {
    out.push([String(e.key.at(-1)), e.versionstamp]);
  }
  return out;
}

async function recordOf(ctx: CredentialContext, thid: string) {
  const id = (await ctx.kv.get<string>(keys.credentialByThread(ctx.orgId, thid))).value;
  if (!id) return null;
  return (await ctx.kv.get<StoredExchange>(keys.credential(ctx.orgId, id))).value!.record;
}

/** Problem reports sent since `from`. */
async function problemReports(ctx: CredentialContext, from = 0) {
  return (await ctx.flush()).slice(from).filter((s) =>
    s.message["@type"] === "https://didcomm.org/issue-credential/2.0/problem-report"
  );
}

/** Offer in and accepted: the record waits in request-sent. Returns thid and request credential. */
async function toRequestSent(ctx: CredentialContext) {
  const thid = crypto.randomUUID();
  await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
  await ctx.holder.acceptOffer(ctx.orgId, (await recordOf(ctx, thid))!.id);
  await ctx.flush();
  return { thid, credential: offeredCredential(ctx.issuer.did) };
}

Deno.test("a credential on an unknown thread gets a problem report and creates nothing", async () => {
  const ctx = await createCredentialContext();
  try {
    const vc = await signCredential(offeredCredential(ctx.issuer.did), {
      keyPair: ctx.issuer.keyPair,
      suite: "Ed25519Signature2018",
    });
    await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage("no-such-thread", vc));
    const prs = await problemReports(ctx);
    assert.equal(prs.length, 1);
    assert.deepEqual(prs[0]!.message["~thread"], { thid: "no-such-thread" });
    assert.equal((prs[0]!.message.description as Json).code, "unexpected-message");
    assert.deepEqual(await snapshot(ctx), []);
  } finally {
    await ctx.close();
  }
});

Deno.test("a credential before the request was sent (out of order) is refused; record unchanged", async () => {
  const ctx = await createCredentialContext();
  try {
    const thid = crypto.randomUUID();
    await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
    const before = await snapshot(ctx);
    const vc = await signCredential(offeredCredential(ctx.issuer.did), {
      keyPair: ctx.issuer.keyPair,
      suite: "Ed25519Signature2018",
    });
    await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage(thid, vc));
    const prs = await problemReports(ctx);
    assert.equal(prs.length, 1);
    assert.match(String((prs[0]!.message.description as Json).en), /state "offer-received"/);
    assert.deepEqual(await snapshot(ctx), before);
    assert.equal((await recordOf(ctx, thid))!.state, "offer-received");
  } finally {
    await ctx.close();
  }
});

Deno.test("malformed credential attachments get a problem report; record unchanged", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid } = await toRequestSent(ctx);
    const before = await snapshot(ctx);
    const good = issueMessage(thid, { a: 1 });
    const att = (good["credentials~attach"] as Json[])[0]!;
    const bad: Json[] = [
      { ...good, "credentials~attach": [{ ...att, data: { base64: "!!!not base64" } }] },
      { ...good, formats: [] },
      { ...good, "credentials~attach": "nope" },
      issueMessage(thid, { "@context": [], issuer: "x" }), // no proof
      issueMessage(thid, "a string"),
    ];
    for (const m of bad) await ctx.port.receive(ctx.orgId, ctx.connectionId, m);
    const prs = await problemReports(ctx);
    assert.equal(prs.length, bad.length);
    for (const pr of prs) assert.equal((pr.message.description as Json).code, "malformed-message");
    assert.deepEqual(await snapshot(ctx), before);
  } finally {
    await ctx.close();
  }
});

Deno.test("replays: a second copy of the credential or the offer gets a problem report; nothing changes", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid, vc } = await exchangeToCredentialReceived(ctx);
    await ctx.flush();
    const from = ctx.port.sent.length;
    const before = await snapshot(ctx);
    const w3cBefore = await Array.fromAsync(
      ctx.kv.list({ prefix: keys.w3cCredentialPrefix(ctx.orgId) }),
    );
    await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage(thid, vc));
    await ctx.port.receive(ctx.orgId, ctx.connectionId, offerMessage(ctx.issuer.did, { thid }));
    const prs = await problemReports(ctx, from);
    assert.equal(prs.length, 2);
    assert.deepEqual(await snapshot(ctx), before);
    const w3cAfter = await Array.fromAsync(
      ctx.kv.list({ prefix: keys.w3cCredentialPrefix(ctx.orgId) }),
    );
    assert.equal(w3cAfter.length, w3cBefore.length);
  } finally {
    await ctx.close();
  }
});

Deno.test("a message on the thread from another connection is refused and answered to that connection", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid, credential } = await toRequestSent(ctx);
    const intruder = crypto.randomUUID();
    ctx.port.connections.add(intruder);
    const before = await snapshot(ctx);
    const vc = await signCredential(credential, {
      keyPair: ctx.issuer.keyPair,
      suite: "Ed25519Signature2018",
    });
    await ctx.port.receive(ctx.orgId, intruder, issueMessage(thid, vc));
    await ctx.port.receive(ctx.orgId, intruder, {
      "@type": "https://didcomm.org/issue-credential/2.0/problem-report",
      "@id": crypto.randomUUID(),
      description: { en: "x", code: "y" },
      "~thread": { thid },
    });
    const prs = await problemReports(ctx);
    assert.equal(prs.length, 1);
    assert.equal(prs[0]!.connectionId, intruder);
    assert.deepEqual(await snapshot(ctx), before);
    assert.equal((await recordOf(ctx, thid))!.state, "request-sent");
  } finally {
    await ctx.close();
  }
});

Deno.test("a credential whose proof was altered ends abandoned with a problem report", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid, credential } = await toRequestSent(ctx);
    const vc = await signCredential(credential, {
      keyPair: ctx.issuer.keyPair,
      suite: "Ed25519Signature2018",
    });
    const proof = vc.proof as { jws: string };
    const sig = proof.jws.split("..")[1]!;
    proof.jws = proof.jws.replace(sig, (sig[0] === "A" ? "B" : "A") + sig.slice(1));
    await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage(thid, vc));
    const rec = (await recordOf(ctx, thid))!;
    assert.equal(rec.state, "abandoned");
    assert.deepEqual(rec._tags.state, "abandoned");
    assert.match(rec.errorMessage!, /^issuance-abandoned: credential proof does not verify/);
    assert.deepEqual(rec.credentials, []);
    const prs = await problemReports(ctx);
    assert.equal(prs.length, 1);
    assert.equal((prs[0]!.message.description as Json).code, "issuance-abandoned");
    assert.deepEqual(prs[0]!.message["~thread"], { thid });
    assert.equal(
      (await Array.fromAsync(ctx.kv.list({ prefix: keys.w3cCredentialPrefix(ctx.orgId) }))).length,
      0,
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("a validly signed credential that is not the one requested ends abandoned", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid, credential } = await toRequestSent(ctx);
    const changed = { ...credential, credentialSubject: { name: "Mallory" } };
    const vc = await signCredential(changed, {
      keyPair: ctx.issuer.keyPair,
      suite: "Ed25519Signature2018",
    });
    await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage(thid, vc));
    const rec = (await recordOf(ctx, thid))!;
    assert.equal(rec.state, "abandoned");
    assert.match(rec.errorMessage!, /"credentialSubject" differs/);
    assert.equal((await problemReports(ctx)).length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("a credential signed by someone other than its issuer ends abandoned", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid, credential } = await toRequestSent(ctx);
    const stranger = didKeyIdentity();
    const vc = await signCredential(credential, {
      keyPair: { ...stranger.keyPair, controller: ctx.issuer.did },
      suite: "Ed25519Signature2018",
    });
    await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage(thid, vc));
    const rec = (await recordOf(ctx, thid))!;
    assert.equal(rec.state, "abandoned");
    assert.match(rec.errorMessage!, /does not verify/);
  } finally {
    await ctx.close();
  }
});

Deno.test("an AnonCreds offer becomes an abandoned record with its ids in metadata and a problem report", async () => {
  const ctx = await createCredentialContext();
  try {
    const thid = crypto.randomUUID();
    await ctx.port.receive(ctx.orgId, ctx.connectionId, {
      "@type": "https://didcomm.org/issue-credential/2.0/offer-credential",
      "@id": crypto.randomUUID(),
      formats: [{ attach_id: "a", format: "anoncreds/credential-offer@v1.0" }],
      credential_preview: {
        "@type": "https://didcomm.org/issue-credential/2.0/credential-preview",
        attributes: [{ name: "degree", value: "BSc" }],
      },
      "offers~attach": [{
        "@id": "a",
        data: { json: { schema_id: "S:2:degree:1.0", cred_def_id: "S:3:CL:1:tag" } },
      }],
      "~thread": { thid },
    });
    const rec = (await recordOf(ctx, thid))!;
    assert.equal(rec.state, "abandoned");
    assert.match(rec.errorMessage!, /AnonCreds format/);
    assert.deepEqual(rec.metadata["_anoncreds/credential"], {
      schemaId: "S:2:degree:1.0",
      credentialDefinitionId: "S:3:CL:1:tag",
    });
    const prs = await problemReports(ctx);
    assert.equal(prs.length, 1);
    assert.equal((prs[0]!.message.description as Json).code, "issuance-abandoned");
    await assert.rejects(ctx.holder.acceptOffer(ctx.orgId, rec.id), /must be "offer-received"/);
  } finally {
    await ctx.close();
  }
});

Deno.test("a malformed offer gets a problem report and creates no record", async () => {
  const ctx = await createCredentialContext();
  try {
    const offer = offerMessage(ctx.issuer.did);
    offer["offers~attach"] = [{ "@id": "zzz", data: { base64: "e30=" } }];
    await ctx.port.receive(ctx.orgId, ctx.connectionId, offer);
    assert.equal((await problemReports(ctx)).length, 1);
    assert.deepEqual(await snapshot(ctx), []);
  } finally {
    await ctx.close();
  }
});

Deno.test("an issuer problem report abandons the open exchange with code: text", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid } = await toRequestSent(ctx);
    const from = ctx.port.sent.length;
    await ctx.port.receive(ctx.orgId, ctx.connectionId, {
      "@type": "https://didcomm.org/issue-credential/2.0/problem-report",
      "@id": crypto.randomUUID(),
      description: { en: "no more credentials today", code: "issuance-abandoned" },
      "~thread": { thid },
    });
    const rec = (await recordOf(ctx, thid))!;
    assert.equal(rec.state, "abandoned");
    assert.equal(rec.errorMessage, "issuance-abandoned: no more credentials today");
    assert.equal((await problemReports(ctx, from)).length, 0, "never answered");
  } finally {
    await ctx.close();
  }
});

Deno.test("Ed25519Signature2020 credentials verify and are stored", async () => {
  const ctx = await createCredentialContext();
  try {
    const { thid } = await exchangeToCredentialReceived(ctx, { suite: "Ed25519Signature2020" });
    const rec = (await recordOf(ctx, thid))!;
    assert.equal(rec.state, "credential-received", rec.errorMessage);
    assert.equal(rec.credentials.length, 1);
  } finally {
    await ctx.close();
  }
});
