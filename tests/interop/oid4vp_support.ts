/**
 * What the OpenID4VP interop tests share: a real Credo 0.6.3 OpenID4VCI issuer and a real Credo
 * 0.6.3 OpenID4VP verifier (Node.js subprocesses, `tests/interop/oid4vc_peer`), this service on a
 * fresh KV with a configured org, and SD-JWT VCs issued to that org by the Credo issuer over
 * OpenID4VCI before any request.
 */
import assert from "node:assert/strict";
import { interopTest } from "./availability.ts";
import { offerAndAccept, opts as vpInterop } from "./oid4vc_holder.ts";
import { type Oid4vcIssuer, type Oid4vcOfferOptions, startOid4vcIssuer } from "./oid4vc_peer.ts";
import { type Oid4vpVerifier, startOid4vpVerifier } from "./oid4vp_peer.ts";
import { configureAgent, type ServedContext, servedContext } from "../didcomm/helpers.ts";
import {
  type ContextOptions,
  createTestContext,
  expectJson,
  type TestContext,
} from "../support/context.ts";
import { recordEvents } from "../support/outbox.ts";

/** Deno.test options of the OpenID4VP interop tests (the same peer as OpenID4VCI's). */
export { vpInterop };

export const ORG = "org-oid4vp";
export const VCT = "https://example.org/vct/identity";
export type Json = Record<string, unknown>;

/** Everything a test uses. */
export interface VpSetup {
  issuer: Oid4vcIssuer;
  verifier: Oid4vpVerifier;
  ctx: TestContext | ServedContext;
  token: string;
  /** The stored SD-JWT VC issued by Credo. */
  credentialId: string;
}

/** A DCQL query for the identity credential asking for `paths`. */
export function identityQuery(paths: string[][], id = "pid"): Json {
  return {
    credentials: [{
      id,
      format: "dc+sd-jwt",
      meta: { vct_values: [VCT] },
      claims: paths.map((path) => ({ path })),
    }],
  };
}

/**
 * Receives an offer from the Credo issuer (`offer`: e.g. an ES256-only configuration) and accepts
 * it; the stored credential's id.
 */
export async function issueToOrg(
  s: Omit<VpSetup, "credentialId">,
  offerOptions: Oid4vcOfferOptions = { issuer: "ed25519-did-key" },
): Promise<string> {
  const { out: done } = await offerAndAccept(s, offerOptions, ORG);
  assert.equal(done.state, "done", String(done.errorMessage));
  return (done.credentialIds as string[])[0]!;
}

/**
 * Starts both peers and the service (on a real port with `served`, for the browser), and issues
 * one credential to the org.
 */
export async function vpSetup(opts: ContextOptions = {}, served = false): Promise<VpSetup> {
  const [issuer, verifier] = await Promise.all([startOid4vcIssuer(), startOid4vpVerifier()]);
  const ctx = served ? await servedContext(opts) : await createTestContext(opts);
  await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
  const token = await ctx.token({ [ORG]: ["holder"] });
  const partial = { issuer, verifier, ctx, token };
  return { ...partial, credentialId: await issueToOrg(partial) };
}

/** Closes everything. */
export async function vpTeardown(s: VpSetup): Promise<void> {
  await s.ctx.close();
  await Promise.all([s.issuer.close(), s.verifier.close()]);
}

/** An interop test that runs `fn` on a fresh {@link vpSetup} (`context`), closed afterwards. */
export function vpTest(
  name: string,
  fn: (s: VpSetup) => Promise<void>,
  context?: ContextOptions,
): void {
  interopTest(name, vpInterop, () => vpSetup(context), vpTeardown, fn);
}

/** POST a request link to the org. */
export const receive = (s: VpSetup, request: string, token = s.token, org = ORG) =>
  s.ctx.call("POST", `/orgs/${org}/openid4vp/requests`, { token, body: { request } });

/** `GET /orgs/{ORG}/openid4vp/requests/{id}`: the request record. */
export const getRequest = async (s: VpSetup, id: string) =>
  await expectJson(
    await s.ctx.call("GET", `/orgs/${ORG}/openid4vp/requests/${id}`, { token: s.token }),
    200,
  );

/** Accept (with an optional selection). */
export const accept = (s: VpSetup, id: string, body: Json = {}) =>
  s.ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${id}/accept`, { token: s.token, body });

/** Decline. */
export const decline = (s: VpSetup, id: string) =>
  s.ctx.call("POST", `/orgs/${ORG}/openid4vp/requests/${id}/decline`, { token: s.token });

/** The presentation.state_changed events of one request, in order. */
export const presentationEvents = (kv: Deno.Kv, id: string) =>
  recordEvents(kv, "presentation.state_changed", id);

/** The verifier's answers-endpoint calls of one Credo session (what the holder sent it). */
export async function sentTo(v: Oid4vpVerifier, authorizationRequestId: string) {
  return (await v.exchanges()).filter((e) =>
    e.method === "POST" && e.session === authorizationRequestId
  );
}
