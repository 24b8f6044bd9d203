/**
 * Shared setup of the Credo interop tests: this service as the holder (a real HTTP server whose
 * agent endpoint is its `/didcomm`, dispatcher running, org agent configured) next to a real Credo
 * issuer, and a connection made from one of the issuer's invitations.
 */
import assert from "node:assert/strict";
import type { ConnectionView } from "../../src/didcomm/connections/record.ts";
import type { ContextOptions } from "../support/context.ts";
import { configureAgent, type ServedContext, servedContext, waitFor } from "../didcomm/helpers.ts";
import { type CredoIssuer, startCredoIssuer } from "./credo_peer.ts";

/**
 * Starts a Credo issuer and the served holder app (`opts` as for `servedContext`), configures
 * `orgId`'s agent and runs `fn`; prints Credo's logs when `fn` fails; closes both.
 */
export async function withCredoIssuer(
  orgId: string,
  fn: (issuer: CredoIssuer, ctx: ServedContext) => Promise<void>,
  opts: ContextOptions = {},
): Promise<void> {
  const issuer = await startCredoIssuer();
  const ctx = await servedContext(opts);
  ctx.services.dispatcher.start();
  try {
    await configureAgent(ctx, orgId, ctx.endpoint);
    await fn(issuer, ctx);
  } catch (err) {
    console.error("--- Credo peer logs ---\n" + issuer.logs());
    throw err;
  } finally {
    await ctx.close();
    await issuer.close();
  }
}

/**
 * `POST /orgs/{orgId}/connections/receive-invitation` with `invitationUrl` (asserts 201), then
 * waits until our connection is `completed` (fails early when it is abandoned). Returns the
 * creation response body and the completed connection.
 */
export async function receiveInvitation(
  ctx: Pick<ServedContext, "call">,
  orgId: string,
  token: string,
  invitationUrl: string,
): Promise<{ created: ConnectionView; ours: ConnectionView }> {
  const res = await ctx.call("POST", `/orgs/${orgId}/connections/receive-invitation`, {
    token,
    body: { invitationUrl },
  });
  const created = JSON.parse(await res.text()) as ConnectionView;
  assert.equal(res.status, 201, JSON.stringify(created));
  const ours = await waitFor(`our connection ${created.id} completed`, async () => {
    const r = await ctx.call("GET", `/orgs/${orgId}/connections/${created.id}`, { token });
    const body = JSON.parse(await r.text()) as ConnectionView;
    if (body.state === "abandoned") throw new Error(`abandoned: ${body.errorMessage}`);
    return body.state === "completed" ? body : undefined;
  });
  return { created, ours };
}
