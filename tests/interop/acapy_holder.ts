/**
 * Shared steps of the ACA-Py interop tests: this service as the holder (a real HTTP server whose
 * agent endpoint is its `/didcomm`, dispatcher running, org agent configured) next to a real
 * ACA-Py, connections made from ACA-Py's invitations with ACA-Py accepting each request through
 * its admin API, and the records of both sides read as they change.
 */
import assert from "node:assert/strict";
import type { ConnectionView } from "../../src/didcomm/connections/record.ts";
import { type ContextOptions, expectJson } from "../support/context.ts";
import { configureAgent, type ServedContext, servedContext, waitFor } from "../didcomm/helpers.ts";
import { type AcapyOptions, type AcapyPeer, startAcapy } from "./acapy_peer.ts";

type Json = Record<string, unknown>;

/**
 * Starts ACA-Py and the served holder app, configures `orgId`'s agent and runs `fn`; prints
 * ACA-Py's output when `fn` fails; stops both.
 */
export async function withAcapy(
  orgId: string,
  fn: (acapy: AcapyPeer, ctx: ServedContext) => Promise<void>,
  opts: ContextOptions = {},
  acapyOptions: AcapyOptions = {},
): Promise<void> {
  const acapy = await startAcapy(acapyOptions);
  let ctx: ServedContext | undefined;
  try {
    ctx = await servedContext(opts);
    ctx.services.dispatcher.start();
    await configureAgent(ctx, orgId, ctx.endpoint);
    await fn(acapy, ctx);
  } catch (err) {
    console.error("--- ACA-Py output ---\n" + acapy.logs());
    throw err;
  } finally {
    await ctx?.close();
    await acapy.close();
  }
}

/** How ACA-Py invites: an out-of-band invitation naming one handshake, or a legacy `?c_i=`. */
export type AcapyHandshake =
  | "didexchange/1.1"
  | "didexchange/1.0"
  | "connections/1.0"
  | "connections-legacy";

/** An ACA-Py connection record (`GET /connections/{id}`), the fields the tests read. */
export interface AcapyConnection extends Json {
  connection_id: string;
  state: string;
  rfc23_state: string;
  connection_protocol: string;
  their_label?: string;
  their_did?: string;
  my_did?: string;
  invitation_msg_id?: string;
}

/** ACA-Py's invitation: its URL and how to find the connection it makes. */
export async function acapyInvitation(
  acapy: AcapyPeer,
  handshake: AcapyHandshake,
  body: Json = {},
): Promise<{ invitationUrl: string; invitation: Json; find: () => Promise<AcapyConnection[]> }> {
  if (handshake === "connections-legacy") {
    const r = await acapy.admin<Json>("POST", "/connections/create-invitation", body);
    const id = String(r.connection_id);
    return {
      invitationUrl: String(r.invitation_url),
      invitation: r.invitation as Json,
      find: async () => [await acapy.admin<AcapyConnection>("GET", `/connections/${id}`)],
    };
  }
  const r = await acapy.admin<Json>("POST", "/out-of-band/create-invitation?auto_accept=false", {
    handshake_protocols: [`https://didcomm.org/${handshake}`],
    use_public_did: false,
    ...body,
  });
  const msgId = String(r.invi_msg_id);
  return {
    invitationUrl: String(r.invitation_url),
    invitation: r.invitation as Json,
    find: async () =>
      (await acapy.admin<{ results: AcapyConnection[] }>(
        "GET",
        `/connections?invitation_msg_id=${encodeURIComponent(msgId)}`,
      )).results,
  };
}

/** Polls ACA-Py's admin API at `path` until `pred` holds for the record; returns it. */
export function acapyRecord<T extends Json>(
  acapy: AcapyPeer,
  what: string,
  path: string,
  pred: (r: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  return waitFor(what, async () => {
    const r = await acapy.admin<T>("GET", path);
    return pred(r) ? r : undefined;
  }, timeoutMs);
}

/**
 * Our connection from ACA-Py's invitation: `receive-invitation` (201), ACA-Py accepts the request
 * through its admin API, and both sides end the handshake: ours `completed`, ACA-Py's `active`
 * (`rfc23_state` completed; over Connections 1.0 ACA-Py gets there only on our first message, the
 * trust ping we send after its response). Returns our record and ACA-Py's.
 */
export async function connectToAcapy(
  acapy: AcapyPeer,
  ctx: Pick<ServedContext, "call">,
  orgId: string,
  token: string,
  handshake: AcapyHandshake,
  invitationBody: Json = {},
): Promise<{ ours: ConnectionView; theirs: AcapyConnection; invitation: Json }> {
  const inv = await acapyInvitation(acapy, handshake, invitationBody);
  const created = await expectJson(
    await ctx.call("POST", `/orgs/${orgId}/connections/receive-invitation`, {
      token,
      body: { invitationUrl: inv.invitationUrl },
    }),
    201,
  ) as unknown as ConnectionView;
  assert.equal(created.state, "request-sent");
  const requested = await waitFor(
    "ACA-Py's record of our request",
    async () => (await inv.find()).find((c) => c.rfc23_state === "request-received"),
    15_000,
  );
  const accept = handshake.startsWith("didexchange") ? "didexchange" : "connections";
  await acapy.admin("POST", `/${accept}/${requested.connection_id}/accept-request`, {});
  const ours = await waitFor(`our connection ${created.id} completed`, async () => {
    const body = await expectJson(
      await ctx.call("GET", `/orgs/${orgId}/connections/${created.id}`, { token }),
      200,
    ) as unknown as ConnectionView;
    if (body.state === "abandoned") throw new Error(`abandoned: ${body.errorMessage}`);
    return body.state === "completed" ? body : undefined;
  }, 15_000);
  const theirs = await acapyRecord<AcapyConnection>(
    acapy,
    `ACA-Py's connection ${requested.connection_id} active`,
    `/connections/${requested.connection_id}`,
    (c) => {
      if (c.state === "abandoned") throw new Error(`ACA-Py abandoned it: ${c.error_msg}`);
      return c.state === "active";
    },
  );
  return { ours, theirs, invitation: inv.invitation };
}

/** ACA-Py's credential exchange record (`cred_ex_record` of `GET /issue-credential-2.0/records/{id}`). */
export async function acapyCredEx(acapy: AcapyPeer, id: string): Promise<Json> {
  const r = await acapy.admin<{ cred_ex_record: Json }>(
    "GET",
    `/issue-credential-2.0/records/${id}`,
  );
  return r.cred_ex_record;
}

/** Waits until ACA-Py's credential exchange `id` is in `state`; fails early when abandoned. */
export function acapyCredExIn(acapy: AcapyPeer, id: string, state: string): Promise<Json> {
  return waitFor(`ACA-Py's credential exchange ${id} in ${state}`, async () => {
    const rec = await acapyCredEx(acapy, id);
    if (rec.state === "abandoned" && state !== "abandoned") {
      throw new Error(`ACA-Py abandoned it: ${rec.error_msg}`);
    }
    return rec.state === state ? rec : undefined;
  }, 15_000);
}

/** Our credential exchange on `threadId` once it is in `state` (fails early when abandoned). */
export function ourExchange(
  ctx: Pick<ServedContext, "call">,
  orgId: string,
  token: string,
  threadId: string,
  state: string,
): Promise<Json> {
  return waitFor(`our exchange on ${threadId} in ${state}`, async () => {
    const list = await expectJson(
      await ctx.call("GET", `/orgs/${orgId}/credentials`, { token }),
      200,
    );
    const rec = (list.data as Json[]).find((x) => x.threadId === threadId);
    if (rec?.state === "abandoned" && state !== "abandoned") {
      throw new Error(`abandoned: ${rec.errorMessage}`);
    }
    return rec?.state === state ? rec : undefined;
  }, 15_000);
}

/** ACA-Py's did:key (Ed25519) for signing credentials: `POST /wallet/did/create`. */
export async function acapyIssuerDid(acapy: AcapyPeer): Promise<string> {
  const r = await acapy.admin<{ result: { did: string } }>("POST", "/wallet/did/create", {
    method: "key",
    options: { key_type: "ed25519" },
  });
  return r.result.did;
}

/**
 * ACA-Py offers a JSON-LD credential (`ld_proof`, RFC 0593) signed by `issuerDid` with
 * `proofType`, nothing automatic (`auto_issue` off, the record kept). The contexts are ones its
 * offline loader has (VC 1.1, ed25519-2020) or inline.
 */
export async function acapyOffer(
  acapy: AcapyPeer,
  connectionId: string,
  issuerDid: string,
  proofType: "Ed25519Signature2018" | "Ed25519Signature2020",
  subject: Json = { name: "Alice" },
): Promise<{ credExId: string; threadId: string }> {
  const r = await acapy.admin<Json>("POST", "/issue-credential-2.0/send-offer", {
    connection_id: connectionId,
    auto_issue: false,
    auto_remove: false,
    comment: "A name credential",
    filter: {
      ld_proof: {
        credential: {
          "@context": ["https://www.w3.org/2018/credentials/v1", {
            name: "https://schema.org/name",
          }],
          type: ["VerifiableCredential"],
          issuer: issuerDid,
          issuanceDate: "2026-01-01T00:00:00Z",
          credentialSubject: subject,
        },
        options: { proofType },
      },
    },
  });
  return { credExId: String(r.cred_ex_id), threadId: String(r.thread_id) };
}

/**
 * The whole issuance driven from both sides: ACA-Py offers, we accept the offer, ACA-Py issues
 * (`/issue`), we accept the credential. Returns our done record and ACA-Py's exchange id.
 */
export async function issueFromAcapy(
  acapy: AcapyPeer,
  ctx: Pick<ServedContext, "call">,
  orgId: string,
  token: string,
  connectionId: string,
  issuerDid: string,
  proofType: "Ed25519Signature2018" | "Ed25519Signature2020",
): Promise<{ credExId: string; threadId: string; done: Json }> {
  const offer = await acapyOffer(acapy, connectionId, issuerDid, proofType);
  const offered = await ourExchange(ctx, orgId, token, offer.threadId, "offer-received");
  const body = { credentialRecordId: offered.id };
  await expectJson(await ctx.call("POST", "/credentials/accept-offer", { token, body }), 200);
  await acapyCredExIn(acapy, offer.credExId, "request-received");
  await acapy.admin("POST", `/issue-credential-2.0/records/${offer.credExId}/issue`, {});
  await ourExchange(ctx, orgId, token, offer.threadId, "credential-received");
  const done = await expectJson(
    await ctx.call("POST", "/credentials/accept-credential", { token, body }),
    200,
  );
  await acapyCredExIn(acapy, offer.credExId, "done");
  return { ...offer, done };
}
