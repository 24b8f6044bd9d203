/**
 * Test support for the credential exchange: a fake DIDComm layer (real outbox, messages captured
 * instead of packed and posted), Credo-shaped issuer messages, and a test context.
 */
import type { Services } from "../../src/compose.ts";
import { notFound } from "../../src/base/errors.ts";
import { type CredentialHolder, holderHandlers } from "../../src/issue_credential/mod.ts";
import { type ExchangeDidcomm, type ExchangeHandler, jsonToBase64 } from "../../src/didcomm/mod.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import { generateEd25519KeyPair } from "../../src/crypto/mod.ts";
import type { DidCommMessage } from "../../src/didcomm/mod.ts";
import { keys } from "../../src/kv/mod.ts";
import { enqueue } from "../../src/outbox/mod.ts";
import { createTestContext, type TestContext } from "../support/context.ts";
import { didKeyIdentity, type TestIdentity } from "../credentials/jsonld/test_keys.ts";

/** Outbox kind of the fake layer's messages. */
export const FAKE_DIDCOMM_KIND = "fake_didcomm";

/** A message the fake layer "sent": what the DIDComm layer would pack and post. */
export interface SentMessage {
  orgId: string;
  connectionId: string;
  message: DidCommMessage;
}

/**
 * A fake of the DIDComm layer as the holder sees it (the real one needs a peer): `queueMessage`
 * enqueues a real outbox message in the caller's atomic op, and its outbox handler appends it to
 * `sent` (optionally also POSTs it to `postTo`); `receive` gives a message to the holder's real
 * handler of its `@type` and commits its writes, as the DIDComm layer does.
 */
export class FakeDidcomm implements ExchangeDidcomm {
  readonly sent: SentMessage[] = [];
  /** Connections known to the fake (others are refused with 404). */
  readonly connections = new Set<string>();
  #services?: Services;
  #handlers: Record<string, ExchangeHandler> = {};

  constructor(readonly now: () => number, readonly opts: { postTo?: string } = {}) {}

  queueMessage(op: Deno.AtomicOperation, input: SentMessage): Promise<void> {
    if (!this.connections.has(input.connectionId)) {
      throw notFound(`No connection "${input.connectionId}".`);
    }
    enqueue(op, { kind: FAKE_DIDCOMM_KIND, orgId: input.orgId, payload: input }, this.now());
    return Promise.resolve();
  }

  /** Takes the built services: the holder's handlers and this fake's outbox handler. */
  attach(services: Services): void {
    this.#services = services;
    this.#handlers = holderHandlers(services.holder);
    const postTo = this.opts.postTo;
    services.dispatcher.register<SentMessage>(FAKE_DIDCOMM_KIND, {
      schedule: [10, 10, 10],
      handle: async (msg) => {
        if (postTo) {
          try {
            const res = await fetch(postTo, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(msg.payload),
            });
            await res.body?.cancel();
            if (!res.ok) return { ok: false, error: `HTTP ${res.status}`, status: res.status };
          } catch (err: unknown) {
            return { ok: false, error: String(err) };
          }
        }
        this.sent.push(msg.payload);
        return { ok: true };
      },
    });
  }

  /** Delivers a message to the holder's handler of its `@type` and commits its writes. */
  async receive(
    orgId: string,
    connectionId: string | null,
    message: Record<string, unknown>,
  ): Promise<void> {
    const services = this.#services!;
    const h = this.#handlers[String(message["@type"])];
    if (!h) throw new Error(`no handler for ${message["@type"]}`);
    // like the DIDComm layer: the handler's writes commit in one op; a failed commit re-runs it
    for (let attempt = 0; attempt < 6; attempt++) {
      const op = services.kv.atomic();
      await h({ orgId, connectionId, message: message as DidCommMessage, op, now: this.now() });
      if ((await op.commit()).ok) {
        services.dispatcher.wake();
        return;
      }
    }
    throw new Error("inbound commit kept failing");
  }
}

/** A context with a fake DIDComm layer, an issuer and one org with an agent. */
export interface CredentialContext extends TestContext {
  port: FakeDidcomm;
  holder: CredentialHolder;
  issuer: TestIdentity;
  orgId: string;
  connectionId: string;
  /** Delivers pending outbox messages and returns the fake layer's sent list. */
  flush(): Promise<SentMessage[]>;
}

/** Writes a minimal agent record (the fields the holder reads) for `orgId`. */
export async function writeAgent(
  kv: Deno.Kv,
  orgId: string,
  policy: "never" | "contentApproved" | "always",
): Promise<string> {
  const kp = generateEd25519KeyPair();
  await kv.set(keys.agent(orgId), { orgId, verkey: kp.verkey, autoAcceptCredentials: policy });
  return kp.verkey;
}

/** Builds the credential test context. */
export async function createCredentialContext(
  opts: {
    policy?: "never" | "contentApproved" | "always";
    postTo?: string;
    kvPath?: string;
  } = {},
): Promise<CredentialContext> {
  const port = new FakeDidcomm(Date.now, { postTo: opts.postTo });
  const ctx = await createTestContext({ kvPath: opts.kvPath, build: { holderDidcomm: port } });
  port.attach(ctx.services);
  const orgId = "org-a";
  const connectionId = crypto.randomUUID();
  port.connections.add(connectionId);
  await writeAgent(ctx.kv, orgId, opts.policy ?? "never");
  return {
    ...ctx,
    port,
    holder: ctx.services.holder,
    issuer: didKeyIdentity(),
    orgId,
    connectionId,
    flush: async () => {
      while (await ctx.services.dispatcher.runOnce() > 0) { /* until nothing is due */ }
      return port.sent;
    },
  };
}

/** The credential Credo offers (see tests/interop/fixtures/credo_messages.json). */
export function offeredCredential(issuerDid: string): Record<string, unknown> {
  return {
    "@context": ["https://www.w3.org/2018/credentials/v1", { name: "https://schema.org/name" }],
    type: ["VerifiableCredential"],
    issuer: issuerDid,
    issuanceDate: "2024-11-23T09:24:35Z",
    credentialSubject: { name: "Alice" },
  };
}

/** A Credo-shaped `offer-credential` (JSON-LD) on a new thread. */
export function offerMessage(
  issuerDid: string,
  opts: { thid?: string; credential?: Record<string, unknown>; proofType?: string } = {},
): DidCommMessage {
  const attachId = crypto.randomUUID();
  return {
    "@type": "https://didcomm.org/issue-credential/2.0/offer-credential",
    "@id": crypto.randomUUID(),
    formats: [{ attach_id: attachId, format: "aries/ld-proof-vc-detail@v1.0" }],
    credential_preview: {
      "@type": "https://didcomm.org/issue-credential/2.0/credential-preview",
      attributes: [],
    },
    "offers~attach": [{
      "@id": attachId,
      "mime-type": "application/json",
      data: {
        base64: jsonToBase64({
          credential: opts.credential ?? offeredCredential(issuerDid),
          options: {
            proofType: opts.proofType ?? "Ed25519Signature2018",
            proofPurpose: "assertionMethod",
          },
        }),
      },
    }],
    "~thread": { thid: opts.thid ?? crypto.randomUUID() },
  };
}

/** An `issue-credential` message carrying `vc` on thread `thid`. */
export function issueMessage(thid: string, vc: unknown): DidCommMessage {
  const attachId = crypto.randomUUID();
  return {
    "@type": "https://didcomm.org/issue-credential/2.0/issue-credential",
    "@id": crypto.randomUUID(),
    formats: [{ attach_id: attachId, format: "aries/ld-proof-vc@v1.0" }],
    "credentials~attach": [{
      "@id": attachId,
      "mime-type": "application/json",
      data: { base64: jsonToBase64(vc) },
    }],
    "~thread": { thid },
    "~please_ack": { on: ["RECEIPT"] },
  };
}

/** Decodes the first attachment of `key` in a sent message. */
export function attachmentOf(
  message: Record<string, unknown>,
  key: string,
): Record<string, unknown> {
  const att = (message[key] as { data: { base64: string } }[])[0]!;
  return JSON.parse(new TextDecoder().decode(
    Uint8Array.from(atob(att.data.base64), (c) => c.charCodeAt(0)),
  ));
}

/**
 * Drives one exchange to `credential-received`: offer in, accept-offer (service), the request's
 * credential signed by the issuer, credential in. Returns the record id and thread.
 */
export async function exchangeToCredentialReceived(
  ctx: CredentialContext,
  opts: { suite?: "Ed25519Signature2018" | "Ed25519Signature2020" } = {},
): Promise<{ id: string; thid: string; vc: Record<string, unknown> }> {
  const thid = crypto.randomUUID();
  const suite = opts.suite ?? "Ed25519Signature2018";
  await ctx.port.receive(
    ctx.orgId,
    ctx.connectionId,
    offerMessage(ctx.issuer.did, { thid, proofType: suite }),
  );
  const id = (await ctx.kv.get<string>(keys.credentialByThread(ctx.orgId, thid))).value!;
  await ctx.holder.acceptOffer(ctx.orgId, id);
  const sent = await ctx.flush();
  const request = sent.find((s) =>
    s.message["@type"].endsWith("/request-credential") &&
    (s.message["~thread"] as { thid: string }).thid === thid
  )!;
  const detail = attachmentOf(request.message, "requests~attach") as {
    credential: Record<string, unknown>;
  };
  const vc = await signCredential(detail.credential, { keyPair: ctx.issuer.keyPair, suite });
  await ctx.port.receive(ctx.orgId, ctx.connectionId, issueMessage(thid, vc));
  return { id, thid, vc };
}
