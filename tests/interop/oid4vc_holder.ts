/**
 * Shared setup of the OpenID4VCI interop tests: a real Credo 0.6.3 issuer (Node.js subprocess)
 * behind a real local relay that it publishes as its own origin, this service as the holder (an
 * org with a configured agent, a holder token), and the calls and reads the tests make.
 */
import { interopOptions, interopTest } from "./availability.ts";
import {
  type Oid4vcIssuer,
  type Oid4vcIssuerOptions,
  type Oid4vcOfferOptions,
  startOid4vcIssuer,
} from "./oid4vc_peer.ts";
import { startRelay } from "./oid4vc_relay.ts";
import { configureAgent, waitFor } from "../didcomm/helpers.ts";
import {
  type ContextOptions,
  createTestContext,
  expectJson,
  type TestContext,
} from "../support/context.ts";
import { recordEvents } from "../support/outbox.ts";

const PEER_DIR = new URL("./oid4vc_peer/", import.meta.url);
/** Deno.test options of the interop tests (skipped, or failed under CI, without the peer). */
export const opts = {
  ...interopOptions(PEER_DIR, "node_modules/@credo-ts/openid4vc/package.json"),
  sanitizeOps: false,
  sanitizeResources: false,
};
export const ORG = "org-oid4vc";
export type Json = Record<string, unknown>;

/** The issuer, the relay in front of it and the holder service. */
export interface Setup {
  issuer: Oid4vcIssuer;
  relay: ReturnType<typeof startRelay>;
  ctx: TestContext;
  token: string;
}

/**
 * Starts the relay, the Credo issuer (`peer` options) and the holder service (`context` as for the
 * test context).
 */
export async function setup(
  context: ContextOptions = {},
  peer: Omit<Oid4vcIssuerOptions, "port" | "publicOrigin"> = {},
): Promise<Setup> {
  // The issuer publishes the relay's origin; the relay learns the issuer's port once it listens.
  const relay = startRelay();
  const issuer = await startOid4vcIssuer({ ...peer, publicOrigin: relay.origin });
  relay.setTarget(`http://127.0.0.1:${issuer.port}`);
  const ctx = await createTestContext(context);
  await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
  const token = await ctx.token({ [ORG]: ["holder"] });
  return { issuer, relay, ctx, token };
}

/** Closes the holder service, the issuer and the relay. */
export async function teardown(s: Setup) {
  await s.ctx.close();
  await s.issuer.close();
  await s.relay.close();
}

/**
 * An interop test (`opts`) that runs `fn` on a fresh {@link setup} (`context` and `peer` as there),
 * torn down afterwards whatever happens.
 */
export function oid4vcTest(
  name: string,
  fn: (s: Setup) => Promise<void>,
  context?: ContextOptions,
  peer?: Omit<Oid4vcIssuerOptions, "port" | "publicOrigin">,
): void {
  interopTest(name, opts, () => setup(context, peer), teardown, fn);
}

/** What the holder calls need: the service and a token of the org. */
type Holder = Pick<Setup, "ctx" | "token">;

/** `POST /orgs/{org}/openid4vc/offers`. */
export const receive = async (s: Holder, offerUri: string, org = ORG, token = s.token) =>
  await s.ctx.call("POST", `/orgs/${org}/openid4vc/offers`, {
    token,
    body: { credentialOffer: offerUri },
  });
/** `POST /orgs/{org}/openid4vc/offers/{id}/accept`. */
export const accept = async (s: Holder, id: string, body: Json = {}, org = ORG) =>
  await s.ctx.call("POST", `/orgs/${org}/openid4vc/offers/${id}/accept`, { token: s.token, body });
/**
 * Creates an offer at the issuer (`options`), receives it (201) and accepts it (200) in `org`: the
 * offer, the record received and the record the accept answered.
 */
export async function offerAndAccept(
  s: Holder & Pick<Setup, "issuer">,
  options?: Oid4vcOfferOptions,
  org = ORG,
) {
  const offer = await s.issuer.createOffer(options);
  const rec = await expectJson(await receive(s, offer.offerUri, org), 201);
  const out = await expectJson(await accept(s, rec.id as string, {}, org), 200);
  return { offer, rec, out };
}
/** `GET /orgs/{ORG}/openid4vc/offers/{id}`. */
export const getOffer = async (s: Setup, id: string) =>
  await expectJson(
    await s.ctx.call("GET", `/orgs/${ORG}/openid4vc/offers/${id}`, { token: s.token }),
    200,
  );
/** Waits until offer `id` is in one of `states` (a deferred issuance ending); the record. */
export const offerReaches = (s: Setup, id: string, states: string[], timeoutMs?: number) =>
  waitFor(`offer ${states.join(" or ")}`, async () => {
    const r = await getOffer(s, id);
    return states.includes(String(r.state)) ? r : undefined;
  }, timeoutMs);
/** `GET /orgs/{org}/sd-jwt-credentials/{id}`: a stored SD-JWT VC. */
export const getCredential = async (s: Holder, id: string, org = ORG) =>
  await expectJson(
    await s.ctx.call("GET", `/orgs/${org}/sd-jwt-credentials/${id}`, { token: s.token }),
    200,
  );
/** How many SD-JWT VCs the org has stored. */
export const credentialCount = async (s: Setup) =>
  ((await expectJson(
    await s.ctx.call("GET", `/orgs/${ORG}/sd-jwt-credentials?limit=200`, { token: s.token }),
    200,
  )).data as Json[]).length;

/** The credential.state_changed events of one offer, in order. */
export const events = (kv: Deno.Kv, offerId: string) =>
  recordEvents(kv, "credential.state_changed", offerId);
