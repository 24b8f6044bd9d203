/**
 * A Connections 1.0 response's `connection~sig` (RFC 0160, `ed25519Sha512_single` over an 8-byte
 * timestamp and the connection JSON) is accepted only when it verifies with the invitation key: a
 * signature over other data, or made by another key under the invitation key's name, is
 * `response_not_accepted`. Keys and signatures are made here with libsodium.
 */
import assert from "node:assert/strict";
import { base64urlnopad } from "@scure/base";
import { generateEd25519KeyPair } from "../../../src/crypto/ed25519.ts";
import { verifyConnectionSig } from "../../../src/didcomm/connections/signatures.ts";
import { DidCommProblem } from "../../../src/didcomm/problem_report.ts";
import { getSodium } from "../../../src/didcomm/sodium.ts";

const TYPE = "https://didcomm.org/signature/1.0/ed25519Sha512_single";

/** The `connection~sig` of `connection`, signed by `secretKey`, naming `signer`. */
async function connectionSig(connection: unknown, secretKey: Uint8Array, signer: string) {
  const s = await getSodium();
  const json = new TextEncoder().encode(JSON.stringify(connection));
  const data = new Uint8Array(8 + json.length);
  new DataView(data.buffer).setBigUint64(0, BigInt(Math.floor(Date.now() / 1000)));
  data.set(json, 8);
  return {
    "@type": TYPE,
    signer,
    sig_data: base64urlnopad.encode(data),
    signature: base64urlnopad.encode(s.crypto_sign_detached(data, secretKey)),
  };
}

Deno.test("connection~sig: verifies with the invitation key; other data or another key's signature is response_not_accepted", async () => {
  const invitation = await generateEd25519KeyPair();
  const stranger = await generateEd25519KeyPair();
  const connection = { DID: "did:peer:2.example", DIDDoc: { service: [] } };
  const good = await connectionSig(connection, invitation.secretKey, invitation.verkey);
  assert.deepEqual(verifyConnectionSig(good, [invitation.verkey]), connection);

  // Signed, then the connection changed (another DID for the same signature).
  const data = base64urlnopad.decode(good.sig_data);
  const changed = new TextEncoder().encode(
    JSON.stringify({ ...connection, DID: "did:peer:2.evil" }),
  );
  const tampered = new Uint8Array(8 + changed.length);
  tampered.set(data.subarray(0, 8));
  tampered.set(changed, 8);
  const cases: [string, unknown][] = [
    ["other data", { ...good, sig_data: base64urlnopad.encode(tampered) }],
    [
      "another key, signed in the invitation key's name",
      await connectionSig(connection, stranger.secretKey, invitation.verkey),
    ],
    [
      "another key, naming itself",
      await connectionSig(connection, stranger.secretKey, stranger.verkey),
    ],
  ];
  for (const [what, sig] of cases) {
    assert.throws(
      () => verifyConnectionSig(sig, [invitation.verkey]),
      (err) =>
        err instanceof DidCommProblem && err.code === "response_not_accepted" &&
        /connection~sig (does not verify|is not signed by the invitation key)/.test(err.message),
      what,
    );
  }
});
