/**
 * An OpenID4VCI offer in state `deferred`, as accept leaves one after an issuer answered with a
 * `transaction_id`: written with the holder's own store functions, its first poll due at once (the
 * service's own dispatcher and deferred handler then poll `issuer`'s deferred credential endpoint).
 */
import * as jose from "jose";
import { verkeyToBytes, verkeyToDidKey } from "../../src/crypto/mod.ts";
import { uuidv7 } from "../../src/kv/mod.ts";
import { addPoll } from "../../src/openid4vci/deferred.ts";
import { offerTokenAad, type StoredOffer } from "../../src/openid4vci/record.ts";
import { addNewOffer } from "../../src/openid4vci/store.ts";
import type { TestContext } from "../support/context.ts";

/** The access token the stored offer holds for the deferred endpoint. */
export const DEFERRED_ACCESS_TOKEN = "access-token";

/**
 * Stores an offer of `issuer` (its deferred endpoint `${issuer}/deferred`) waiting for
 * `transactionId`, for a credential of `vct` bound to the org agent's key; its id.
 */
export async function storeDeferredOffer(
  ctx: TestContext,
  orgId: string,
  o: { issuer: string; transactionId: string; vct: string },
): Promise<string> {
  const agent = await ctx.services.wallet.identity(orgId);
  if (!agent) throw new Error(`${orgId} has no agent`);
  const did = verkeyToDidKey(agent.verkey);
  const now = Date.now();
  const id = uuidv7(now);
  const at = new Date(now).toISOString();
  const op = ctx.kv.atomic();
  const jobId = addPoll(op, orgId, id, 0, now);
  const stored: StoredOffer = {
    record: {
      id,
      orgId,
      state: "deferred",
      credentialIssuer: o.issuer,
      credentialConfigurationIds: ["Deferred"],
      txCodeRequired: false,
      credentialIds: [],
      createdAt: at,
      updatedAt: at,
    },
    sealedCode: await ctx.services.secrets.seal("spent", `oid4vc_offer:${orgId}:${id}`),
    metadata: {
      credentialIssuer: {
        credential_issuer: o.issuer,
        credential_endpoint: `${o.issuer}/credential`,
        deferred_credential_endpoint: `${o.issuer}/deferred`,
        credential_configurations_supported: { Deferred: { format: "dc+sd-jwt", vct: o.vct } },
      },
      authorizationServers: [],
    } as unknown as StoredOffer["metadata"],
    deferred: {
      sealedAccessToken: await ctx.services.secrets.seal(
        DEFERRED_ACCESS_TOKEN,
        offerTokenAad(orgId, id),
      ),
      transactions: [{
        configurationId: "Deferred",
        transactionId: o.transactionId,
        holder: {
          kid: `${did}#${did.slice("did:key:".length)}`,
          publicJwk: {
            kty: "OKP",
            crv: "Ed25519",
            x: jose.base64url.encode(verkeyToBytes(agent.verkey)),
          },
        },
      }],
      intervalS: 5,
      jobId,
      until: now + 86_400_000,
    },
  };
  addNewOffer(op, stored, now);
  if (!(await op.commit()).ok) throw new Error("the deferred offer was not stored");
  return id;
}
