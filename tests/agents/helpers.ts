/** Shared setup of the agents tests: a real app with the agents feature on a fresh KV. */
import { type ContextOptions, createTestContext, type TestContext } from "../support/context.ts";

/** A valid configure body (apiKey ≥ 16 characters). */
export function configureBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    walletName: "AcmeAgent",
    agentEndpoint: "http://127.0.0.1:8000/didcomm",
    apiKey: "k3y-" + crypto.randomUUID(),
    ...over,
  };
}

/** A test context (the whole service, as `buildServices` makes it) for the agents tests. */
export function agentsContext(opts: ContextOptions = {}): Promise<TestContext> {
  return createTestContext(opts);
}

/** Configures org `orgId` (owner token) and returns the 201 body and the apiKey used. */
export async function configure(
  ctx: TestContext,
  orgId = "org-a",
  over: Record<string, unknown> = {},
): Promise<{ res: Response; apiKey: string; body: Record<string, unknown> }> {
  const body = configureBody(over);
  const token = await ctx.token({ [orgId]: ["owner"] });
  const res = await ctx.call("POST", `/orgs/${orgId}/agents/configure`, { token, body });
  return { res, apiKey: body.apiKey as string, body };
}

/** Asks for an agent token with the raw key in `authorization`. */
export function agentToken(
  ctx: TestContext,
  apiKey: string,
  opts: { query?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Response> {
  return ctx.call("POST", `/agent/token${opts.query ?? ""}`, {
    headers: { authorization: apiKey, ...opts.headers },
    body: opts.body,
  });
}
