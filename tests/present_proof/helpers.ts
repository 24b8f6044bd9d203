/**
 * Test support for the Present Proof 2.0 prover: the real app with the credential tests' fake
 * DIDComm layer (real outbox; messages captured instead of packed and posted), a real org agent
 * (configured through the route, so its wallet key signs), stored W3C credentials signed by a test
 * issuer, and Credo-shaped verifier messages given to the prover's real handlers.
 */
import * as vc from "@digitalbazaar/vc";
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { proverHandlers } from "../../src/present_proof/inbound.ts";
import { newW3cRecord, type PresentationCheck } from "../../src/credentials/mod.ts";
import type { CredentialExchangeRecord } from "../../src/issue_credential/mod.ts";
import { createDocumentLoader } from "../../src/credentials/jsonld/document_loader.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import type { DocumentLoader } from "../../src/credentials/jsonld/types.ts";
import type { DidCommMessage } from "../../src/didcomm/mod.ts";
import type { ConnectionRecord } from "../../src/didcomm/connections/record.ts";
import { keys, uuidv7 } from "../../src/kv/mod.ts";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import {
  didKeyIdentity,
  resolveDidKey,
  type TestIdentity,
} from "../credentials/jsonld/test_keys.ts";
import { FakeDidcomm, type SentMessage } from "../issue_credential/helpers.ts";

type Json = Record<string, unknown>;

/** The proof test context. */
export interface ProofContext extends TestContext {
  port: FakeDidcomm;
  issuer: TestIdentity;
  orgId: string;
  connectionId: string;
  /** A member's token of the org. */
  member: string;
  /** Delivers pending outbox messages and returns the fake layer's sent list. */
  flush(): Promise<SentMessage[]>;
  /** Gives a verifier's message to the prover's handler of its type and commits its writes. */
  receive(message: DidCommMessage): Promise<void>;
  /**
   * Signs and stores a credential with `subject` (issued by `issuer`, default the context's, with
   * more `contexts` and top-level `fields` such as a `credentialStatus`); returns its stored id.
   */
  store(subject: Json, opts?: StoreOptions): Promise<string>;
}

/** What {@link ProofContext.store} may add to a credential. */
export interface StoreOptions {
  types?: string[];
  issuer?: TestIdentity;
  /** Contexts after the VC v1 context and the inline one. */
  contexts?: string[];
  /** Top-level members of the credential. */
  fields?: Json;
  /** Loads `contexts` when signing. */
  documentLoader?: DocumentLoader;
}

/** Builds the context: org `org-a` with a configured agent and one (fake) connection. */
export async function createProofContext(
  opts: { status?: PresentationCheck; env?: Record<string, string>; now?: () => number } = {},
): Promise<ProofContext> {
  const port = new FakeDidcomm(Date.now);
  const ctx = await createTestContext({
    env: opts.env,
    now: opts.now,
    build: { holderDidcomm: port, ...(opts.status ? { credentialStatus: opts.status } : {}) },
  });
  port.attach(ctx.services);
  const orgId = "org-a";
  const connectionId = crypto.randomUUID();
  port.connections.add(connectionId);
  await expectJson(
    await ctx.call("POST", `/orgs/${orgId}/agents/configure`, {
      token: await ctx.token({ [orgId]: ["owner"] }),
      body: {
        walletName: "ProverAgent",
        agentEndpoint: "http://127.0.0.1:9/didcomm",
        apiKey: "k3y-" + crypto.randomUUID(),
      },
    }),
    201,
  );
  const issuer = didKeyIdentity();
  const handlers = proverHandlers(ctx.services.prover);
  const connection = { id: connectionId, theirLabel: "Verifier Co" } as ConnectionRecord;
  return {
    ...ctx,
    port,
    issuer,
    orgId,
    connectionId,
    member: await ctx.token({ [orgId]: ["holder"] }),
    flush: async () => {
      while (await ctx.services.dispatcher.runOnce() > 0) { /* until nothing is due */ }
      return port.sent;
    },
    receive: async (message) => {
      const h = handlers[message["@type"]];
      if (!h) throw new Error(`no handler for ${message["@type"]}`);
      for (let attempt = 0; attempt < 6; attempt++) {
        const op = ctx.kv.atomic();
        await h({ orgId, connectionId, connection, message, op, now: Date.now() });
        if ((await op.commit()).ok) {
          ctx.services.dispatcher.wake();
          return;
        }
      }
      throw new Error("inbound commit kept failing");
    },
    store: async (subject, o = {}) => {
      const by = o.issuer ?? issuer;
      const vc = await signCredential({
        "@context": [
          "https://www.w3.org/2018/credentials/v1",
          { name: "https://schema.org/name", age: "https://schema.org/age" },
          ...(o.contexts ?? []),
        ],
        type: ["VerifiableCredential", ...(o.types ?? [])],
        issuer: by.did,
        issuanceDate: "2025-01-01T00:00:00Z",
        credentialSubject: subject,
        ...o.fields,
      }, { keyPair: by.keyPair, suite: "Ed25519Signature2018", documentLoader: o.documentLoader });
      const id = uuidv7(Date.now());
      const exchange = { id: crypto.randomUUID(), connectionId } as CredentialExchangeRecord;
      const op = ctx.kv.atomic();
      ctx.services.credentials.add(op, orgId, {
        format: "ldp_vc",
        record: newW3cRecord({ id, credential: vc, exchange, now: Date.now() }),
      });
      await op.commit();
      // uuidv7 of the same millisecond still sorts by creation: wait for the next one.
      await new Promise((r) => setTimeout(r, 2));
      return id;
    },
  };
}

/** A Credo-shaped `request-presentation` with a DIF PE definition, on a new thread. */
export function requestMessage(
  definition: Json,
  opts: { challenge?: string; domain?: string; thid?: string } = {},
): DidCommMessage {
  const attachId = crypto.randomUUID();
  const id = crypto.randomUUID();
  return {
    "@type": "https://didcomm.org/present-proof/2.0/request-presentation",
    "@id": id,
    formats: [{ attach_id: attachId, format: "dif/presentation-exchange/definitions@v1.0" }],
    "request_presentations~attach": [{
      "@id": attachId,
      "mime-type": "application/json",
      data: {
        json: {
          presentation_definition: definition,
          options: { challenge: opts.challenge ?? "challenge-1", domain: opts.domain },
        },
      },
    }],
    will_confirm: true,
    ...(opts.thid ? { "~thread": { thid: opts.thid } } : {}),
  };
}

/** A definition with one descriptor per `[id, JSONPath, filter?]`. */
export function definition(...fields: [string, string, Json?][]): Json {
  return {
    id: crypto.randomUUID(),
    input_descriptors: fields.map(([id, path, filter]) => ({
      id,
      constraints: { fields: [{ path: [path], ...(filter ? { filter } : {}) }] },
    })),
  };
}

/** The proof record of `threadId`. */
export async function proofOf(ctx: ProofContext, threadId: string): Promise<Json> {
  const id = (await ctx.kv.get<string>(keys.proofByThread(ctx.orgId, threadId))).value;
  if (!id) throw new Error(`no proof record on thread ${threadId}`);
  return await expectJson(await ctx.call("GET", `/proofs/${id}`, { token: ctx.member }), 200);
}

/**
 * Receives a request (default: one descriptor `name` asking for `$.credentialSubject.name`) and
 * returns it with the record it made.
 */
export async function receiveRequest(
  ctx: ProofContext,
  pd: Json = definition(["name", "$.credentialSubject.name"]),
): Promise<{ req: DidCommMessage; rec: Json }> {
  const req = requestMessage(pd);
  await ctx.receive(req);
  return { req, rec: await proofOf(ctx, req["@id"]) };
}

/** The messages sent on `threadId` whose type ends with `name`. */
export function sentOn(sent: SentMessage[], threadId: string, name: string): DidCommMessage[] {
  return sent.map((s) => s.message).filter((m) =>
    m["@type"].endsWith(`/${name}`) && m["~thread"]?.thid === threadId
  );
}

/** The presentation (decoded VP) of a `presentation` message. */
export function presentationOf(message: DidCommMessage): Json {
  const att = (message["presentations~attach"] as { data: { base64: string } }[])[0]!;
  return JSON.parse(new TextDecoder().decode(
    Uint8Array.from(atob(att.data.base64), (c) => c.charCodeAt(0)),
  ));
}

/** `POST /proofs/accept-request` of record `id` (with `selection`), by `token` (the member's). */
export function acceptRequest(
  ctx: ProofContext,
  id: unknown,
  selection?: Json,
  token = ctx.member,
): Promise<Response> {
  return ctx.call("POST", "/proofs/accept-request", {
    token,
    body: { proofRecordId: id, ...(selection === undefined ? {} : { selection }) },
  });
}

/**
 * Whether a verifier accepts presentation `vp` (checked with @digitalbazaar/vc: Ed25519 2018,
 * did:key, authentication over `challenge` and `domain`, the JSON-LD `contexts` it knows).
 */
export async function verifiesAt(
  vp: Json,
  o: { challenge: string; domain?: string; contexts?: ReadonlyMap<string, object> },
): Promise<boolean> {
  const result = await vc.verify({
    presentation: vp,
    challenge: o.challenge,
    ...(o.domain === undefined ? {} : { domain: o.domain }),
    suite: new Ed25519Signature2018(),
    documentLoader: createDocumentLoader({
      resolveDid: resolveDidKey,
      ...(o.contexts === undefined ? {} : { contexts: o.contexts }),
    }),
  }) as { verified: boolean };
  return result.verified;
}
