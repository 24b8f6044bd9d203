import { packMessage, unpackMessage } from "../../src/didcomm/envelope.ts";
import { generateEd25519KeyPair } from "../../src/crypto/ed25519.ts";

// A 1 KiB DIDComm message (serialised size ~1024 bytes).
const base = { "@type": "https://didcomm.org/basicmessage/1.0/message", "@id": "b1", content: "" };
const pad = 1024 - JSON.stringify(base).length;
const message = { ...base, content: "x".repeat(pad) };

const alice = await generateEd25519KeyPair();
const bob = await generateEd25519KeyPair();
const find = (vk: string) => Promise.resolve(vk === bob.verkey ? bob.secretKey : undefined);
const authcrypt = await packMessage(message, { recipientKeys: [bob.verkey], sender: alice });
const anoncrypt = await packMessage(message, { recipientKeys: [bob.verkey] });

Deno.bench("pack authcrypt 1 KiB", { group: "pack" }, async () => {
  await packMessage(message, { recipientKeys: [bob.verkey], sender: alice });
});

Deno.bench("pack anoncrypt 1 KiB", { group: "pack" }, async () => {
  await packMessage(message, { recipientKeys: [bob.verkey] });
});

Deno.bench("unpack authcrypt 1 KiB", { group: "unpack" }, async () => {
  await unpackMessage(authcrypt, find);
});

Deno.bench("unpack anoncrypt 1 KiB", { group: "unpack" }, async () => {
  await unpackMessage(anoncrypt, find);
});
