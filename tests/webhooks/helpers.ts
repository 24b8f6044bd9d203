/** Shared setup of the webhook tests: a context with the feature, and a recording receiver. */
import { Webhook } from "standardwebhooks";
import {
  type ContextOptions,
  createTestContext,
  expectJson,
  serveLocal,
  signToken,
  type TestContext,
} from "../support/context.ts";
import type { WebhookHandlerOptions } from "../../src/webhooks/mod.ts";

/** A test context whose webhook deliveries use `handler` options (shorter schedules). */
export function webhookContext(
  opts: ContextOptions & { handler?: WebhookHandlerOptions } = {},
): Promise<TestContext> {
  const { handler, ...rest } = opts;
  return createTestContext({ ...rest, build: { ...rest.build, webhookDelivery: handler } });
}

/** One request as the receiver saw it. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A real local HTTP receiver; `respond` decides each answer (default 204). */
export function receiver(
  respond: (req: Request, n: number) => Response | Promise<Response> = () =>
    new Response(null, { status: 204 }),
) {
  const got: Received[] = [];
  let n = 0;
  const server = serveLocal(async (req) => {
    const body = await req.text();
    got.push({ headers: Object.fromEntries(req.headers), body, at: Date.now() });
    return respond(req, ++n);
  });
  return { ...server, got, hook: `${server.url}/hook` };
}

/**
 * A long-lived owner/admin token: tests that move the injected clock by days still
 * authenticate (the verifier uses the same clock).
 */
export function adminToken(ctx: TestContext, orgs: Record<string, string[]>): Promise<string> {
  return signToken(ctx.idp, { orgs, expiresIn: "1000h" });
}

/**
 * Checks a request's signature with the standardwebhooks library's signer, at the request's own
 * timestamp (`verify` would compare it with the wall clock, which an injected clock runs ahead of).
 */
export function signedBy(secret: string, got: Received): boolean {
  const ts = new Date(Number(got.headers["webhook-timestamp"]) * 1000);
  const expected = new Webhook(secret).sign(got.headers["webhook-id"]!, ts, got.body);
  return got.headers["webhook-signature"]!.split(" ").includes(expected);
}

/** Registers `url` for `orgId` and returns the secret (if one was created). */
export async function register(
  ctx: TestContext,
  orgId: string,
  url: string,
): Promise<string | undefined> {
  const token = await adminToken(ctx, { [orgId]: ["owner"] });
  const res = await ctx.call("POST", "/notification/register/webhook-endpoint", {
    token,
    body: { orgId, notificationWebhook: url },
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${text}`);
  return (JSON.parse(text).data as { secret?: string }).secret;
}

/** Queues a webhook.test event for `orgId`; returns the event id. */
export async function sendTest(ctx: TestContext, orgId: string): Promise<string> {
  const token = await adminToken(ctx, { [orgId]: ["admin"] });
  const res = await ctx.call("POST", "/notification/webhook-endpoint/test", {
    token,
    body: { orgId },
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`test event failed: ${res.status} ${text}`);
  return (JSON.parse(text).data as { eventId: string }).eventId;
}

/** A settable clock for the dispatcher. */
export function manualClock(start = Date.now()) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms), set: (ms: number) => (t = ms) };
}

/** A delivery as the delivery log shows it (the fields the tests read). */
export type Delivery = {
  id: string;
  eventId: string;
  status: string;
  skipped: boolean;
  attempts: { n: number; ok: boolean; status?: number; error?: string }[];
  nextAttemptAt: string | null;
  lastError: string | null;
};

/** GET /notification/deliveries for `orgId` as its owner. */
export async function deliveries(
  ctx: TestContext,
  orgId: string,
  query = "",
): Promise<{ data: Delivery[]; nextCursor: string | null }> {
  const token = await adminToken(ctx, { [orgId]: ["owner"] });
  const res = await ctx.call("GET", `/notification/deliveries?orgId=${orgId}${query}`, { token });
  return await expectJson(res, 200) as never;
}
