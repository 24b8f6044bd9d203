import assert from "node:assert/strict";
import { EnvelopeError, packMessage, unpackMessage } from "../../src/didcomm/envelope.ts";
import { FORWARD_TYPE, parseForward, wrapForRouting } from "../../src/didcomm/forward.ts";
import {
  type Ed25519KeyPair,
  generateEd25519KeyPair,
  verkeyToDidKey,
} from "../../src/crypto/ed25519.ts";

const only = (kp: Ed25519KeyPair) => (vk: string) =>
  Promise.resolve(vk === kp.verkey ? kp.secretKey : undefined);

const msg = { "@type": "https://didcomm.org/trust_ping/1.0/ping", "@id": "p1" };

Deno.test("forward wrapping: outermost layer is for the last routing key, innermost hop is routingKeys[0]", async () => {
  const [alice, bob, m1, m2] = await Promise.all([1, 2, 3, 4].map(() => generateEd25519KeyPair()));
  const packed = await packMessage(msg, { recipientKeys: [bob!.verkey], sender: alice });
  // m1 is the mediator nearest bob (first routing key), m2 is where alice delivers.
  const wrapped = await wrapForRouting(packed, bob!.verkey, [
    m1!.verkey,
    verkeyToDidKey(m2!.verkey),
  ]);

  await assert.rejects(unpackMessage(wrapped, only(m1!)), EnvelopeError);
  const outer = await unpackMessage(wrapped, only(m2!));
  assert.equal(outer.senderKey, undefined, "forward layers are anoncrypt");
  const fwd2 = parseForward(outer.message);
  assert.ok(fwd2);
  assert.equal(fwd2["@type"], FORWARD_TYPE);
  assert.equal(typeof fwd2["@id"], "string");
  assert.equal(fwd2.to, m1!.verkey);

  const middle = await unpackMessage(fwd2.msg, only(m1!));
  const fwd1 = parseForward(middle.message);
  assert.ok(fwd1);
  assert.equal(fwd1.to, bob!.verkey);
  assert.deepEqual(fwd1.msg, packed, "innermost envelope is delivered unchanged");

  const inner = await unpackMessage(fwd1.msg, only(bob!));
  assert.deepEqual(inner, { message: msg, senderKey: alice!.verkey, recipientKey: bob!.verkey });
});

Deno.test("forward wrapping with no routing keys returns the envelope; bad keys are refused", async () => {
  const bob = await generateEd25519KeyPair();
  const packed = await packMessage(msg, { recipientKeys: [bob.verkey] });
  assert.equal(await wrapForRouting(packed, verkeyToDidKey(bob.verkey), []), packed);
  const invalid = (e: unknown) => e instanceof EnvelopeError && e.code === "invalid_input";
  await assert.rejects(wrapForRouting(packed, "nope", []), invalid);
  await assert.rejects(wrapForRouting(packed, bob.verkey, ["did:key:zNope"]), invalid);
});

Deno.test("parseForward accepts both forward type URIs and rejects other messages", () => {
  const env = { protected: "a", iv: "b", ciphertext: "c", tag: "d" };
  const legacy = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/routing/1.0/forward";
  assert.ok(parseForward({ "@type": FORWARD_TYPE, "@id": "1", to: "k", msg: env }));
  assert.ok(parseForward({ "@type": legacy, "@id": "1", to: "k", msg: env }));
  assert.equal(parseForward({ "@type": FORWARD_TYPE, to: 5, msg: env }), undefined);
  assert.equal(parseForward({ "@type": FORWARD_TYPE, to: "k", msg: [] }), undefined);
  assert.equal(parseForward(msg), undefined);
});
