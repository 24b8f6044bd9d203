/**
 * Definitions as ACA-Py writes them (Aries RFC 0510), answered like Credo's:
 * - a PE 1.0 `schema` uri is met by the credential's types as expanded IRIs
 *   (`https://www.w3.org/2018/credentials#VerifiableCredential`), as ACA-Py reads it, and still by
 *   `@context` URLs and the types as written, as the PE library (and Credo) read it; a
 *   `required: true` uri must be among them;
 * - a definition whose `format` names only `ldp_vp` (RFC 0510's own example) is met by JSON-LD
 *   credentials, and the presentation is signed with the proof type it names.
 */
import assert from "node:assert/strict";
import type { DidCommMessage } from "../../src/didcomm/mod.ts";
import { expectJson } from "../support/context.ts";
import {
  acceptRequest,
  createProofContext,
  presentationOf,
  type ProofContext,
  proofOf,
  requestMessage,
  sentOn,
  verifiesAt,
} from "./helpers.ts";

type Json = Record<string, unknown>;
const VC_TYPE = "https://www.w3.org/2018/credentials#VerifiableCredential";
const NAME_TYPE = "https://example.org/vocab#NameCredential";

/** A one-descriptor definition asking for the name, with `schema` (and `format`) as given. */
function pd(schema?: Json[], format?: Json): Json {
  return {
    id: crypto.randomUUID(),
    ...(format ? { format } : {}),
    input_descriptors: [{
      id: "name",
      name: "Name",
      ...(schema ? { schema } : {}),
      constraints: { fields: [{ path: ["$.credentialSubject.name"] }] },
    }],
  };
}

/** The stored credentials that match the request's one descriptor, newest first. */
async function matchesOf(
  ctx: ProofContext,
  definition: Json,
): Promise<{ rec: Json; req: DidCommMessage; ids: unknown[] }> {
  const req = requestMessage(definition, { challenge: "c-1" });
  await ctx.receive(req);
  const rec = await proofOf(ctx, req["@id"]);
  const [d] = rec.inputDescriptors as Json[];
  return { rec, req, ids: (d!.matches as Json[]).map((m) => m.credentialId) };
}

Deno.test("a PE 1.0 schema uri is met by expanded type IRIs (ACA-Py), by context URLs and written types (Credo), and by every required uri", async () => {
  const ctx = await createProofContext();
  try {
    const plain = await ctx.store({ name: "Alice" });
    const named = await ctx.store({ name: "Bob" }, {
      types: ["NameCredential"],
      contexts: [{ NameCredential: NAME_TYPE }],
    });
    const ids = async (schema: Json[]) => (await matchesOf(ctx, pd(schema))).ids;
    assert.deepEqual(await ids([{ uri: VC_TYPE }]), [named, plain]);
    assert.deepEqual(await ids([{ uri: NAME_TYPE }]), [named]);
    assert.deepEqual(await ids([{ uri: "https://example.org/vocab#Other" }]), []);
    assert.deepEqual(await ids([{ uri: "https://www.w3.org/2018/credentials/v1" }]), [
      named,
      plain,
    ]);
    assert.deepEqual(await ids([{ uri: "NameCredential" }]), [named]);
    assert.deepEqual(await ids([{ uri: VC_TYPE }, { uri: NAME_TYPE, required: true }]), [named]);

    // ACA-Py's request: the expanded IRI of the one type; accepted, the presentation verifies.
    const { rec, req } = await matchesOf(ctx, pd([{ uri: NAME_TYPE }]));
    assert.deepEqual(rec.selection, { name: named });
    await expectJson(await acceptRequest(ctx, rec.id), 200);
    const [msg] = sentOn(await ctx.flush(), req["@id"], "presentation");
    const vp = presentationOf(msg!);
    const [vc] = vp.verifiableCredential as Json[];
    assert.equal((vc!.credentialSubject as Json).name, "Bob");
    assert.equal(await verifiesAt(vp, { challenge: "c-1" }), true);

    const unmet = await matchesOf(ctx, pd([{ uri: "https://example.org/vocab#Other" }]));
    const refused = await expectJson(await acceptRequest(ctx, unmet.rec.id), 409);
    assert.match(String(refused.message), /input descriptor "name" \(Name\)/);
  } finally {
    await ctx.close();
  }
});

Deno.test("a definition whose format names only ldp_vp (RFC 0510) is met by JSON-LD credentials, signed with its proof type", async () => {
  const ctx = await createProofContext();
  try {
    const id = await ctx.store({ name: "Alice" });
    for (const proofType of ["Ed25519Signature2018", "Ed25519Signature2020"]) {
      const format = { ldp_vp: { proof_type: [proofType] } };
      const { rec, req, ids } = await matchesOf(ctx, pd([{ uri: VC_TYPE }], format));
      assert.deepEqual(ids, [id]);
      await expectJson(await acceptRequest(ctx, rec.id), 200);
      const [msg] = sentOn(await ctx.flush(), req["@id"], "presentation");
      assert.equal((presentationOf(msg!).proof as Json).type, proofType);
    }
    // A format that names no JSON-LD form still finds none.
    assert.deepEqual((await matchesOf(ctx, pd(undefined, { jwt_vp: { alg: ["ES256"] } }))).ids, []);
  } finally {
    await ctx.close();
  }
});
