import assert from "node:assert/strict";
import { MAX_DID_LENGTH, parseDid, parseDidWithReason } from "../../src/did/syntax.ts";

Deno.test("parseDid splits DIDs and DID URLs into method, id, path, query and fragment", () => {
  assert.deepEqual(parseDid("did:example:123456789abcdefghi"), {
    did: "did:example:123456789abcdefghi",
    method: "example",
    id: "123456789abcdefghi",
    didUrl: "did:example:123456789abcdefghi",
  });
  assert.deepEqual(
    parseDid("did:web:example.com%3A3000:user:alice/path/to?versionId=1&x=y#key-1"),
    {
      did: "did:web:example.com%3A3000:user:alice",
      method: "web",
      id: "example.com%3A3000:user:alice",
      didUrl: "did:web:example.com%3A3000:user:alice/path/to?versionId=1&x=y#key-1",
      path: "/path/to",
      query: "versionId=1&x=y",
      fragment: "key-1",
    },
  );
  const frag = parseDid("did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6Mk");
  assert.equal(frag?.fragment, "z6Mk");
  assert.equal(frag?.path, undefined);
  assert.equal(parseDid("did:example:a::b")?.id, "a::b"); // empty inner segments are allowed
  assert.equal(parseDid("did:example:abc?")?.query, ""); // empty query
  assert.equal(parseDid("did:peer:2.Vz6Mk.SeyJ0IjoiZG0ifQ")?.method, "peer");
});

Deno.test("parseDidWithReason rejects what the DID Core ABNF does not allow, with a reason", () => {
  const bad: [string, RegExp][] = [
    ["", /empty/],
    ["DID:example:abc", /starts with/],
    ["did:Example:abc", /method name/],
    ["did:ex-ample:abc", /method name/],
    ["did::abc", /method name/],
    ["did:example", /method name/],
    ["did:example:", /empty/],
    ["did:example:abc:", /ends with a colon/],
    ["did:example:ab%2", /percent/],
    ["did:example:ab%zz", /percent/],
    ["did:example:a b", /not allowed/],
    ["did:example:a=b", /not allowed/],
    ["did:example:abc#frag ment", /fragment/],
    ["did:example:abc?q=%G1", /query/],
    ["did:example:abc/pa th", /path/],
    ["did:example:abc#a#b", /fragment/],
    ["did:example:" + "a".repeat(MAX_DID_LENGTH), /longer/],
  ];
  for (const [input, reason] of bad) {
    const r = parseDidWithReason(input);
    assert.equal(r.ok, false, input);
    if (!r.ok) assert.match(r.message, reason, input);
    assert.equal(parseDid(input), null);
  }
});

Deno.test("parseDid accepts a DID of exactly MAX_DID_LENGTH characters", () => {
  const did = "did:example:" + "a".repeat(MAX_DID_LENGTH - "did:example:".length);
  assert.equal(did.length, MAX_DID_LENGTH);
  assert.equal(parseDid(did)?.did, did);
  assert.ok(MAX_DID_LENGTH >= 8192);
});
