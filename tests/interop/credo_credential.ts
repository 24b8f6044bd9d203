/**
 * A credential from the real Credo issuer, held by this service: the connection (DID Exchange)
 * made from one of Credo's invitations, Credo's JSON-LD credential offered, accepted, received and
 * acked. For the tests that then present it (in-process app or service subprocess alike).
 */
import { expectJson } from "../support/context.ts";
import { waitFor } from "../support/wait.ts";
import type { CredoIssuer } from "./credo_peer.ts";
import { receiveInvitation } from "./holder_service.ts";
import type { ServedContext } from "../didcomm/helpers.ts";

type Json = Record<string, unknown>;

/** What these steps call: the app in process (`ServedContext`) or a service subprocess. */
export type Caller = Pick<ServedContext, "call">;

/** Connects (DID Exchange), has Credo issue its JSON-LD credential, accepts it; ids of both. */
export async function connectAndIssue(
  issuer: CredoIssuer,
  ctx: Caller,
  orgId: string,
  token: string,
): Promise<{ theirs: string; ours: string; credentialId: string }> {
  const inv = await issuer.createInvitation("didexchange");
  const { created } = await receiveInvitation(ctx, orgId, token, inv.invitationUrl);
  const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000);
  const offer = await issuer.offerCredential({ connectionId: theirs.id });
  const record = (state: string) =>
    waitFor(`our exchange in ${state}`, async () => {
      const list = await expectJson(
        await ctx.call("GET", `/orgs/${orgId}/credentials`, { token }),
        200,
      );
      return (list.data as Json[]).find((x) => x.threadId === offer.threadId && x.state === state);
    }, 15_000);
  const offered = await record("offer-received");
  const body = { credentialRecordId: offered.id };
  await expectJson(await ctx.call("POST", "/credentials/accept-offer", { token, body }), 200);
  await record("credential-received");
  const done = await expectJson(
    await ctx.call("POST", "/credentials/accept-credential", { token, body }),
    200,
  );
  await issuer.waitForCredential(offer.credentialExchangeId, "done", 15_000);
  const credentialId = String((done.credentials as Json[])[0]!.credentialRecordId);
  return { theirs: theirs.id, ours: created.id, credentialId };
}
