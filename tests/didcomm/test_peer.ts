/**
 * A small but real DIDComm v1 inviter for unit tests, built on this repo's envelope code: an HTTP
 * endpoint on 127.0.0.1 that decrypts what it receives, answers DID Exchange 1.1 requests with a
 * response whose `did_rotate~attach` is signed by its invitation key (as Credo does, optionally
 * with a corrupted signature), and can send messages to us. Not a fake: every message crosses
 * real HTTP and real crypto.
 */
import { getSodium } from "../../src/didcomm/sodium.ts";
import { base64urlnopad } from "@scure/base";
import { packMessage, unpackMessage } from "../../src/didcomm/envelope.ts";
import {
  ed25519PublicToX25519,
  generateEd25519KeyPair,
  verkeyToDidKey,
} from "../../src/crypto/ed25519.ts";
import { createPeerDid2 } from "../../src/did/methods/peer.ts";
import { resolveTarget } from "../../src/didcomm/resolve.ts";
import { localResolver } from "../support/local_resolver.ts";
import type { DidCommTarget } from "../../src/didcomm/connections/record.ts";
import type { DidCommMessage } from "../../src/didcomm/messages.ts";

/** Options of {@link startTestPeer}. */
export interface TestPeerOptions {
  /** Corrupt the signature of `did_rotate~attach` in responses. */
  tamperSignature?: boolean;
  /** Status answered to every POST (default 200). */
  status?: number;
  /** Do not answer requests automatically. */
  manual?: boolean;
  /** Awaited before each automatic handshake response is sent (to hold a handshake open). */
  beforeResponse?: () => Promise<void>;
  /** Listen on this port (default: a free one). */
  port?: number;
  /** Use this key pair (to come back on the same port with the same identity). */
  keyPair?: Awaited<ReturnType<typeof generateEd25519KeyPair>>;
}

/** A running test peer. */
export interface TestPeer {
  verkey: string;
  did: string;
  endpoint: string;
  port: number;
  /** Every decrypted message received, in order, with its sender key. */
  received: { message: DidCommMessage; senderKey?: string }[];
  /** HTTP status answered from now on. */
  setStatus(status: number): void;
  /** An OOB 1.1 invitation (DID Exchange 1.1) to this peer. */
  invitation(handshake?: string): Record<string, unknown>;
  /** `http://…?oob=` URL of {@link invitation}. */
  invitationUrl(inv: Record<string, unknown>): string;
  /** Where we (the service) receive messages for the connection this peer answered. */
  ourTarget(): DidCommTarget | undefined;
  /** Packs `message` from this peer for `target` (default: us); returns the envelope JSON. */
  pack(message: DidCommMessage, target?: DidCommTarget): Promise<string>;
  /** Packs `message` from this peer for `target` and POSTs it; returns the HTTP status. */
  send(message: DidCommMessage, target?: DidCommTarget): Promise<number>;
  /** Waits until a message of `type` arrives (after `from` messages). */
  waitFor(type: string, timeoutMs?: number): Promise<DidCommMessage>;
  close(): Promise<void>;
}

const enc = new TextEncoder();

/** Starts a test peer on a free 127.0.0.1 port. */
export async function startTestPeer(opts: TestPeerOptions = {}): Promise<TestPeer> {
  const kp = opts.keyPair ?? await generateEd25519KeyPair();
  const received: TestPeer["received"] = [];
  let status = opts.status ?? 200;
  let ours: DidCommTarget | undefined;
  const slot: { handle?: (m: DidCommMessage) => Promise<void> } = {};
  const server = Deno.serve(
    { port: opts.port ?? 0, hostname: "127.0.0.1", onListen: () => {} },
    async (req) => {
      const body = new Uint8Array(await req.arrayBuffer());
      try {
        const un = await unpackMessage(
          body,
          (k) => Promise.resolve(k === kp.verkey ? kp.secretKey : undefined),
        );
        const message = un.message as DidCommMessage;
        received.push({ message, senderKey: un.senderKey });
        if (status === 200 && slot.handle) await slot.handle(message);
      } catch {
        return new Response("bad", { status: 400 });
      }
      return new Response(null, { status });
    },
  );
  const port = server.addr.port;
  const endpoint = `http://127.0.0.1:${port}`;
  const did = createPeerDid2({
    authentication: [kp.publicKey],
    keyAgreement: [await ed25519PublicToX25519(kp.publicKey)],
    services: [{
      serviceEndpoint: endpoint,
      type: "did-communication",
      priority: 0,
      routingKeys: [],
    }],
  });

  async function pack(message: DidCommMessage, target = ours): Promise<string> {
    if (!target) throw new Error("test peer: no target yet");
    const env = await packMessage(message, {
      recipientKeys: target.recipientKeys,
      sender: { verkey: kp.verkey, secretKey: kp.secretKey },
    });
    return JSON.stringify(env);
  }

  async function send(message: DidCommMessage, target = ours): Promise<number> {
    if (!target) throw new Error("test peer: no target yet");
    const res = await fetch(target.endpoint, {
      method: "POST",
      headers: { "content-type": "application/didcomm-envelope-enc" },
      body: await pack(message, target),
    });
    await res.body?.cancel();
    return res.status;
  }

  async function signedDid(): Promise<Record<string, unknown>> {
    const s = await getSodium();
    const x = base64urlnopad.encode(kp.publicKey);
    const protectedB64 = base64urlnopad.encode(
      enc.encode(JSON.stringify({ alg: "EdDSA", jwk: { kty: "OKP", crv: "Ed25519", x } })),
    );
    const payload = base64urlnopad.encode(enc.encode(did));
    const sig = s.crypto_sign_detached(enc.encode(`${protectedB64}.${payload}`), kp.secretKey);
    if (opts.tamperSignature) sig[0] = sig[0]! ^ 1;
    return {
      "@id": crypto.randomUUID(),
      data: {
        base64: payload,
        jws: {
          protected: protectedB64,
          signature: base64urlnopad.encode(sig),
          header: { kid: verkeyToDidKey(kp.verkey) },
        },
      },
    };
  }

  if (!opts.manual) {
    slot.handle = async (m) => {
      if (m["@type"] !== "https://didcomm.org/didexchange/1.1/request") return;
      ours = await resolveTarget(localResolver, String(m.did));
      const response = {
        "@type": "https://didcomm.org/didexchange/1.1/response",
        "@id": crypto.randomUUID(),
        did,
        "~thread": { thid: m["@id"] },
        "did_rotate~attach": await signedDid(),
      };
      // Answer after this HTTP exchange, as a separate request (like Credo).
      setTimeout(async () => {
        await opts.beforeResponse?.();
        await send(response).catch(() => {});
      }, 0);
    };
  }

  return {
    verkey: kp.verkey,
    did,
    endpoint,
    port,
    received,
    setStatus: (s) => (status = s),
    invitation: (handshake = "https://didcomm.org/didexchange/1.1") => ({
      "@type": "https://didcomm.org/out-of-band/1.1/invitation",
      "@id": crypto.randomUUID(),
      label: "Test Peer",
      accept: ["didcomm/aip2;env=rfc19"],
      handshake_protocols: [handshake],
      services: [{
        id: "#inline-0",
        type: "did-communication",
        recipientKeys: [verkeyToDidKey(kp.verkey)],
        routingKeys: [],
        serviceEndpoint: endpoint,
      }],
    }),
    invitationUrl: (inv) =>
      `${endpoint}?oob=${base64urlnopad.encode(enc.encode(JSON.stringify(inv)))}`,
    ourTarget: () => ours,
    pack,
    send,
    async waitFor(type, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = received.find((r) => r.message["@type"] === type);
        if (hit) return hit.message;
        if (Date.now() > deadline) throw new Error(`test peer: no ${type} arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => server.shutdown(),
  };
}
