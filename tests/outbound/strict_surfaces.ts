/**
 * The outbound surfaces whose address a stranger chooses (a webhook target, an agent endpoint, an
 * invitation link or service, a peer DID's DIDComm endpoint, a did:web or did:webvh host, a status
 * list URL, a JSON-LD context host, an OpenID4VCI issuer and its credential endpoint, an OpenID4VP
 * `request_uri` and `response_uri`), each as one row of `strict_instance_test.ts`: how to make the
 * service reach a target through its public routes (or its composed services), and the sentence
 * that tells why it did not. A row's `prepare` runs in the world's open context (private
 * addresses allowed, the same KV file): what a request left behind while the target was allowed,
 * or before the instance became strict.
 */
import { generateEd25519KeyPair, verkeyToBytes } from "../../src/crypto/mod.ts";
import { createDocumentLoader } from "../../src/credentials/mod.ts";
import { createPeerDid2 } from "../../src/did/mod.ts";
import { DIDCOMM_KIND } from "../../src/didcomm/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";
import { invitationTo } from "../didcomm/helpers.ts";
import { DEFERRED_KIND } from "../../src/openid4vci/mod.ts";
import { storeDeferredOffer } from "../openid4vci/deferred_offer.ts";
import { storeW3c } from "../openid4vp/stored_credentials.ts";
import { entry } from "../status/lists.ts";
import type { TestContext } from "../support/context.ts";

type Json = Record<string, unknown>;

/** One address to refuse: `base` is `http://<host>:<port>`, `host` is `<host>:<port>`. */
export interface Target {
  label: string;
  base: string;
  host: string;
  /** A host name (resolved by the world's DNS) rather than an IP literal. */
  isName: boolean;
  /** The range the refusal must name. */
  reason: RegExp;
}

/** What a row works with. */
export interface World {
  /** The strict instance: OUTBOUND_ALLOW_PRIVATE unset. */
  strict: TestContext;
  /** The same KV file and keys, private addresses allowed (for `prepare`). */
  open: TestContext;
  /** The org with a configured agent (and a stored SD-JWT VC), and a token of its owner. */
  org: string;
  token: string;
  /** A fresh org id (for rows that need one endpoint per target). */
  freshOrg(): string;
  /** A fresh org with an agent (its endpoint on a public address), and its owner's token. */
  agentOrg(): Promise<{ org: string; token: string }>;
}

/** A surface: its name, and the refusal's sentence for a target. */
export interface Surface {
  name: string;
  /** Only host names apply (did:webvh refuses IP hosts by its own syntax). */
  namesOnly?: boolean;
  /** Runs in the open context first; what it returns is handed to `refuse`. */
  prepare?: (w: World, t: Target) => Promise<string>;
  /** Makes the strict instance try `t`; the sentence that says why it did not reach it. */
  refuse: (w: World, t: Target, prepared: string) => Promise<string>;
}

async function body(res: Response, status: number, what: string): Promise<Json> {
  const text = await res.text();
  if (res.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${res.status}: ${text}`);
  }
  return JSON.parse(text);
}

/** The last error of the org's pending outbox message of `kind`. */
async function outboxError(kv: Deno.Kv, kind: string, orgId: string): Promise<string> {
  const errors: string[] = [];
  for await (const e of kv.list<OutboxMessage>({ prefix: ["outbox"] })) {
    if (e.value.kind === kind && e.value.orgId === orgId && e.value.lastError) {
      errors.push(e.value.lastError);
    }
  }
  return errors.at(-1) ?? `no ${kind} attempt of ${orgId} recorded an error`;
}

const post = (ctx: TestContext, token: string, path: string, b: unknown) =>
  ctx.call("POST", path, { token, body: b });

/** A by-value unsigned OpenID4VP request of `clientId` (redirect_uri:) answering at `responseUri`. */
function vpRequest(responseUri: string, dcql: Json): string {
  const q = new URLSearchParams({
    client_id: `redirect_uri:${responseUri}`,
    response_type: "vp_token",
    response_mode: "direct_post",
    response_uri: responseUri,
    nonce: crypto.randomUUID(),
    dcql_query: JSON.stringify(dcql),
  });
  return `openid4vp://?${q}`;
}

const SD_JWT_QUERY = {
  credentials: [{
    id: "pid",
    format: "dc+sd-jwt",
    meta: { vct_values: ["https://example.org/vct/identity"] },
    claims: [{ path: ["given_name"] }],
  }],
};

export const SURFACES: Surface[] = [
  {
    name: "webhook target, at registration",
    refuse: async (w, t) =>
      String(
        (await body(
          await post(w.strict, w.token, "/notification/register/webhook-endpoint", {
            orgId: w.org,
            notificationWebhook: `${t.base}/hook`,
          }),
          400,
          "register",
        )).message,
      ),
  },
  {
    name: "webhook target, at delivery (registered while it was allowed)",
    prepare: async (w, t) => {
      const org = w.freshOrg();
      const token = await w.open.token({ [org]: ["owner"] });
      await body(
        await post(w.open, token, "/notification/register/webhook-endpoint", {
          orgId: org,
          notificationWebhook: `${t.base}/hook`,
        }),
        201,
        "register (open)",
      );
      return org;
    },
    refuse: async (w, _t, org) => {
      const token = await w.strict.token({ [org]: ["owner"] });
      await body(
        await post(w.strict, token, "/notification/webhook-endpoint/test", { orgId: org }),
        202,
        "test event",
      );
      await w.strict.services.dispatcher.runOnce();
      return await outboxError(w.strict.kv, "webhook", org);
    },
  },
  {
    name: "agent endpoint",
    refuse: async (w, t) => {
      const org = w.freshOrg();
      return String(
        (await body(
          await post(
            w.strict,
            await w.strict.token({ [org]: ["owner"] }),
            `/orgs/${org}/agents/configure`,
            {
              walletName: "Strict",
              agentEndpoint: `${t.base}/didcomm`,
              apiKey: "k3y-" + crypto.randomUUID(),
            },
          ),
          400,
          "configure",
        )).message,
      );
    },
  },
  {
    name: "invitation link (short link)",
    refuse: async (w, t) =>
      String(
        (await body(
          await post(w.strict, w.token, `/orgs/${w.org}/connections/receive-invitation`, {
            invitationUrl: `${t.base}/invitation`,
          }),
          400,
          "receive-invitation",
        )).message,
      ),
  },
  {
    name: "invitation service endpoint",
    refuse: async (w, t) => {
      const inv = invitationTo((await generateEd25519KeyPair()).verkey, `${t.base}/didcomm`);
      return await invitationRefusal(w, await w.agentOrg(), inv);
    },
  },
  {
    name: "DIDComm endpoint of a peer's DID (did:peer:2 service)",
    refuse: async (w, t) => {
      const key = await generateEd25519KeyPair();
      const peerDid = createPeerDid2({
        authentication: [verkeyToBytes(key.verkey)],
        keyAgreement: [],
        services: [{ type: "did-communication", serviceEndpoint: `${t.base}/didcomm` }],
      });
      return await invitationRefusal(w, await w.agentOrg(), {
        "@type": "https://didcomm.org/out-of-band/1.1/invitation",
        "@id": crypto.randomUUID(),
        label: "Peer DID",
        handshake_protocols: ["https://didcomm.org/didexchange/1.1"],
        services: [peerDid],
      });
    },
  },
  {
    name: "did:web host",
    refuse: async (w, t) => {
      const did = `did:web:${t.host.replace(":", "%3A")}`;
      const res = await w.strict.call("GET", `/dids/${did}`, { token: w.token });
      return String(((await body(res, 500, did)).didResolutionMetadata as Json).message);
    },
  },
  {
    name: "did:webvh host",
    namesOnly: true,
    refuse: async (w, t) => {
      const did = `did:webvh:QmTestScidTestScidTestScidTestScidTestScid1234:${
        t.host.replace(":", "%3A")
      }`;
      const res = await w.strict.call("GET", `/dids/${did}`, { token: w.token });
      return String(((await body(res, 500, did)).didResolutionMetadata as Json).message);
    },
  },
  {
    name: "status list URL",
    refuse: async (w, t) => {
      const status = await w.strict.services.status.statusOf({
        format: "ldp_vc",
        credential: {
          issuer: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
          credentialStatus: entry(`${t.base}/lists/1`, 3),
        },
      });
      return `${status.state}: ${status.message}`;
    },
  },
  {
    name: "JSON-LD context host (JSONLD_CONTEXT_ALLOW)",
    refuse: async (w, t) => {
      const a = await w.agentOrg();
      const url = `${t.base}/ctx/v1`;
      const vocab = {
        "@context": {
          nick: "https://example.org/vocab#nick",
          NickCredential: "https://example.org/vocab#NickCredential",
        },
      };
      await storeW3c(w.strict, a.org, { nick: "Ally" }, {
        context: url,
        type: "NickCredential",
        documentLoader: createDocumentLoader({ contexts: new Map([[url, vocab]]) }),
      });
      const rec = await body(
        await post(w.strict, a.token, `/orgs/${a.org}/openid4vp/requests`, {
          request: vpRequest("http://verifier.public.test/cb", {
            credentials: [{
              id: "ldp",
              format: "ldp_vc",
              meta: { type_values: [["VerifiableCredential"]] },
              claims: [{ path: ["credentialSubject", "nick"] }],
            }],
          }),
        }),
        201,
        "receive",
      );
      const path = `/orgs/${a.org}/openid4vp/requests/${rec.id}/accept`;
      const res = await post(w.strict, a.token, path, {});
      return `${res.status}: ${(await res.json()).message}`;
    },
  },
  {
    name: "OpenID4VCI issuer (metadata)",
    refuse: async (w, t) => {
      const offer = {
        credential_issuer: t.base,
        credential_configuration_ids: ["Id"],
        grants: {
          "urn:ietf:params:oauth:grant-type:pre-authorized_code": { "pre-authorized_code": "c0de" },
        },
      };
      return String(
        (await body(
          await post(w.strict, w.token, `/orgs/${w.org}/openid4vc/offers`, {
            credentialOffer: `openid-credential-offer://?credential_offer=${
              encodeURIComponent(JSON.stringify(offer))
            }`,
          }),
          400,
          "offer",
        )).message,
      );
    },
  },
  {
    name: "OpenID4VCI credential endpoint (deferred)",
    refuse: async (w, t) => {
      const a = await w.agentOrg();
      const id = await storeDeferredOffer(w.strict, a.org, {
        issuer: t.base,
        transactionId: "tx",
        vct: "https://example.org/vct/x",
      });
      await w.strict.services.dispatcher.runOnce();
      const offer = await body(
        await w.strict.call("GET", `/orgs/${a.org}/openid4vc/offers/${id}`, { token: a.token }),
        200,
        "offer",
      );
      return `${offer.state}: ${
        offer.errorMessage ?? await outboxError(w.strict.kv, DEFERRED_KIND, a.org)
      }`;
    },
  },
  {
    name: "OpenID4VP request_uri",
    refuse: async (w, t) => {
      const q = new URLSearchParams({
        client_id:
          "decentralized_identifier:did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
        request_uri: `${t.base}/request/1`,
      });
      return String(
        (await body(
          await post(w.strict, w.token, `/orgs/${w.org}/openid4vp/requests`, {
            request: `openid4vp://?${q}`,
          }),
          400,
          "request_uri",
        )).message,
      );
    },
  },
  {
    name: "OpenID4VP response_uri, at receipt",
    refuse: async (w, t) =>
      String(
        (await body(
          await post(w.strict, w.token, `/orgs/${w.org}/openid4vp/requests`, {
            request: vpRequest(`${t.base}/cb`, SD_JWT_QUERY),
          }),
          400,
          "response_uri",
        )).message,
      ),
  },
  {
    name: "OpenID4VP response_uri, at accept (received while it was allowed)",
    prepare: async (w, t) =>
      String(
        (await body(
          await post(w.open, w.token, `/orgs/${w.org}/openid4vp/requests`, {
            request: vpRequest(`${t.base}/cb`, SD_JWT_QUERY),
          }),
          201,
          "receive (open)",
        )).id,
      ),
    refuse: async (w, _t, id) =>
      String(
        (await body(
          await post(w.strict, w.token, `/orgs/${w.org}/openid4vp/requests/${id}/accept`, {}),
          400,
          "accept",
        )).message,
      ),
  },
];

/**
 * Receives `invitation` on the strict instance and runs its dispatcher once: the refusal, at
 * receipt (400) or at the delivery of the connection request (the outbox attempt's error).
 */
async function invitationRefusal(
  w: World,
  a: { org: string; token: string },
  invitation: Json,
): Promise<string> {
  const res = await post(w.strict, a.token, `/orgs/${a.org}/connections/receive-invitation`, {
    invitation,
  });
  if (res.status === 400) return String((await res.json()).message);
  await body(res, 201, "receive-invitation");
  await w.strict.services.dispatcher.runOnce();
  return await outboxError(w.strict.kv, DIDCOMM_KIND, a.org);
}
