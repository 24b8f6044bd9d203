/**
 * Test support for the credential exchange: a fake DIDComm port (real outbox, messages captured
 * instead of packed and posted), Credo-shaped issuer messages, and a test context.
 */
import type { AppDeps } from "../../src/deps.ts";
import { notFound } from "../../src/errors.ts";
import { credentialsFeature, setupCredentials } from "../../src/credentials/feature.ts";
import type {
  CredentialDidcommPort,
  DidcommMessage,
  InboundHandler,
} from "../../src/credentials/didcomm_port.ts";
import type { CredentialHolder } from "../../src/credentials/holder.ts";
import { jsonToBase64 } from "../../src/credentials/messages.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import { generateEd25519KeyPair } from "../../src/crypto/ed25519.ts";
import { keys } from "../../src/kv/keys.ts";
import { enqueue } from "../../src/outbox/outbox.ts";
import { createTestContext, type TestContext } from "../support/context.ts";
import { didKeyIdentity, type TestIdentity } from "../credentials/jsonld/test_keys.ts";

/** Outbox kind of the fake port's messages. */
export const FAKE_DIDCOMM_KIND = "fake_didcomm";

/** A message the fake port "sent": what the DIDComm layer would pack and post. */
export interface SentMessage {
  orgId: string;
  connectionId: string;
  message: DidcommMessage;
}

/**
 * A fake DIDComm port: handlers in a map; `queueMessage` enqueues a real outbox message in the
 * caller's atomic op; its outbox handler appends to `sent` (optionally also POSTs to `postTo`).
 */
export interface FakeDidcommPort extends CredentialDidcommPort {
  handlers: Map<string, InboundHandler>;
  sent: SentMessage[];
  /** Delivers a message to the registered handler of its `@type`. */
  receive(
    orgId: string,
    connectionId: string | null,
    message: Record<string, unknown>,
  ): Promise<void>;
  /** Connections known to the fake (others are refused with 404). */
  connections: Set<string>;
}

/** Creates the fake port and registers its outbox handler on `deps.dispatcher`. */
export function fakeDidcommPort(deps: AppDeps, opts: { postTo?: string } = {}): FakeDidcommPort {
  const port: FakeDidcommPort = {
    handlers: new Map(),
    sent: [],
    connections: new Set(),
    registerHandler(type, handler) {
      port.handlers.set(type, handler);
    },
    queueMessage(op, input) {
      if (!port.connections.has(input.connectionId)) {
        throw notFound(`No connection "${input.connectionId}".`);
      }
      enqueue(op, { kind: FAKE_DIDCOMM_KIND, orgId: input.orgId, payload: input }, deps.now());
    },
    async receive(orgId, connectionId, message) {
      const h = port.handlers.get(String(message["@type"]));
      if (!h) throw new Error(`no handler for ${message["@type"]}`);
      // like the DIDComm layer: the handler's writes commit in one op; a failed commit re-runs it
      for (let attempt = 0; attempt < 6; attempt++) {
        const op = deps.kv.atomic();
        await h({ orgId, connectionId, message, op, now: deps.now() });
        if ((await op.commit()).ok) {
          deps.dispatcher.wake();
          return;
        }
      }
      throw new Error("inbound commit kept failing");
    },
  };
  deps.dispatcher.register<SentMessage>(FAKE_DIDCOMM_KIND, {
    schedule: [10, 10, 10],
    async handle(msg) {
      if (opts.postTo) {
        try {
          const res = await fetch(opts.postTo, {
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
      port.sent.push(msg.payload);
      return { ok: true };
    },
  });
  return port;
}

/** A context with the credentials feature, a fake port, an issuer and one org with an agent. */
export interface CredentialContext extends TestContext {
  port: FakeDidcommPort;
  holder: CredentialHolder;
  issuer: TestIdentity;
  orgId: string;
  connectionId: string;
  /** Delivers pending outbox messages and returns the fake port's sent list. */
  flush(): Promise<SentMessage[]>;
}

/** Writes a minimal agent record (the fields the holder reads) for `orgId`. */
export async function writeAgent(
  kv: Deno.Kv,
  orgId: string,
  policy: "never" | "contentApproved" | "always",
): Promise<string> {
  const kp = await generateEd25519KeyPair();
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
  let port: FakeDidcommPort | undefined;
  let holder: CredentialHolder | undefined;
  const ctx = await createTestContext({
    features: [credentialsFeature],
    kvPath: opts.kvPath,
    setup: async (deps) => {
      port = fakeDidcommPort(deps, { postTo: opts.postTo });
      holder = await setupCredentials(deps, { port });
    },
  });
  const orgId = "org-a";
  const connectionId = crypto.randomUUID();
  port!.connections.add(connectionId);
  await writeAgent(ctx.kv, orgId, opts.policy ?? "never");
  return {
    ...ctx,
    port: port!,
    holder: holder!,
    issuer: didKeyIdentity(),
    orgId,
    connectionId,
    flush: async () => {
      while (await ctx.deps.dispatcher.runOnce() > 0) { /* until nothing is due */ }
      return port!.sent;
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
): DidcommMessage {
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
export function issueMessage(thid: string, vc: unknown): DidcommMessage {
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
