/**
 * Org agent configuration: `POST /orgs/{orgId}/agents/configure`, `GET`, `PATCH`, `DELETE
 * /orgs/{orgId}/agents` (owner/admin of the org, never an agent token), and `POST /agent/token`.
 *
 * Check order: 401 (token) → 400 (malformed `orgId`) → 403 (role) → 400 (body) → 404/409.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppDeps } from "../deps.ts";
import { errorResponses } from "../http/openapi.ts";
import { hashSecret } from "../crypto/secret_box.ts";
import { conflict, ConflictError, notFound } from "../errors.ts";
import { requireBearer, requireOrgAdmin } from "../http/auth.ts";
import type { AppEnv } from "../http/env.ts";
import { createRouter } from "../http/router.ts";
import { uuidv7 } from "../kv/ids.ts";
import { keys } from "../kv/keys.ts";
import { log } from "../log.ts";
import { emit } from "../webhooks/emit.ts";
import { queueDidRotation } from "../didcomm/api.ts";
import { verkeyToBytes } from "../crypto/ed25519.ts";
import { apiKeyLookupId, lookupPepper } from "./api_key.ts";
import { createAgentPeerDid } from "./peer_did.ts";
import { type AgentRecord, agentView, readAgent } from "./record.ts";
import {
  AgentSchema,
  assertOrgId,
  configureBody,
  ConfigureResponse,
  OrgParams,
  patchBody,
} from "./schemas.ts";
import { registerTokenRoute } from "./token_route.ts";
import { deleteWalletKeys, newWalletKey, writeWalletKey } from "./wallet.ts";

const ALREADY =
  "already has an agent; change it with PATCH /orgs/{orgId}/agents or remove it with DELETE first.";

/** Authenticates, checks the path's org id, then requires owner/admin of it. */
function orgAdmin(deps: AppDeps) {
  return async (c: Context<AppEnv>, next: () => Promise<void>) => {
    const p = await deps.verifier.verify(requireBearer(c.req.header("authorization")));
    c.set("principal", p);
    const orgId = c.req.param("orgId") ?? "";
    assertOrgId(orgId);
    requireOrgAdmin(p, orgId);
    await next();
  };
}

/** The agents feature router. */
export function agentsFeature(deps: AppDeps) {
  const app = createRouter();
  const requireHttps = deps.config.outbound.requireHttps;
  const admin = orgAdmin(deps);
  const tags = ["Agents"];

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/agents/configure",
      tags,
      summary: "Create the org's agent: wallet key, did:peer:2, API key (stored hashed)",
      middleware: [admin] as const,
      request: {
        params: OrgParams,
        body: {
          required: true,
          content: { "application/json": { schema: configureBody(requireHttps) } },
        },
      },
      responses: {
        201: {
          description: "Configured",
          content: { "application/json": { schema: ConfigureResponse } },
        },
        ...errorResponses(400, 401, 403, 409, 415),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const body = c.req.valid("json");
      if ((await readAgent(deps.kv, orgId)).value) {
        throw conflict(`Organization "${orgId}" ${ALREADY}`);
      }
      const now = deps.now();
      const id = uuidv7(now);
      const { record: key, publicKey } = await newWalletKey(deps.secrets, orgId, id, {
        purpose: "agent",
        now,
      });
      const { did } = await createAgentPeerDid(publicKey, body.agentEndpoint);
      const at = new Date(now).toISOString();
      const record: AgentRecord = {
        id,
        orgId,
        walletName: body.walletName,
        agentEndpoint: body.agentEndpoint,
        did,
        verkey: key.verkey,
        keyId: key.keyId,
        apiKeyHash: await hashSecret(body.apiKey),
        apiKeyLookup: await apiKeyLookupId(await lookupPepper(deps), body.apiKey),
        autoAcceptCredentials: "never",
        keyEpoch: crypto.randomUUID(),
        createdAt: at,
        updatedAt: at,
      };
      const data = {
        id,
        orgId,
        walletName: record.walletName,
        agentEndpoint: record.agentEndpoint,
        did,
        createdAt: at,
      };
      const op = deps.kv.atomic().check({ key: keys.agent(orgId), versionstamp: null });
      writeWalletKey(op, key);
      op.set(keys.agent(orgId), record).set(keys.agentByApiKey(record.apiKeyLookup, orgId), orgId);
      emit(op, orgId, "agent.configured", { ...data, action: "created" }, now);
      if (!(await op.commit()).ok) throw conflict(`Organization "${orgId}" ${ALREADY}`);
      deps.dispatcher.wake();
      log("info", "agent configured", { orgId, agentId: id, did });
      return c.json({
        statusCode: 201 as const,
        success: true as const,
        message: `Agent "${record.walletName}" is configured for organization "${orgId}".`,
        data,
      }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/agents",
      tags,
      summary: "The org's agent configuration (never the API key)",
      middleware: [admin] as const,
      request: { params: OrgParams },
      responses: {
        200: { description: "Agent", content: { "application/json": { schema: AgentSchema } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const r = (await readAgent(deps.kv, orgId)).value;
      if (!r) throw notFound(`Organization "${orgId}" has no agent configured.`);
      return c.json(agentView(r), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/orgs/{orgId}/agents",
      tags,
      summary: "Change the endpoint, rotate the API key, or set the credential auto-accept policy",
      description:
        "A new agentEndpoint also reaches existing connections: each completed one is moved to a " +
        "new key and did:peer:2 naming it with DID Rotate 1.0 (RFC 0794), in the background. A " +
        "new apiKey ends the old key's agent tokens at once.",
      middleware: [admin] as const,
      request: {
        params: OrgParams,
        body: {
          required: true,
          content: { "application/json": { schema: patchBody(requireHttps) } },
        },
      },
      responses: {
        200: {
          description: "Updated agent",
          content: { "application/json": { schema: AgentSchema } },
        },
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const body = c.req.valid("json");
      const newKey = body.apiKey === undefined ? undefined : {
        hash: await hashSecret(body.apiKey),
        lookup: await apiKeyLookupId(await lookupPepper(deps), body.apiKey),
      };
      for (let attempt = 0; attempt < 5; attempt++) {
        const cur = await readAgent(deps.kv, orgId);
        if (!cur.value) throw notFound(`Organization "${orgId}" has no agent configured.`);
        const now = deps.now();
        const next: AgentRecord = { ...cur.value, updatedAt: new Date(now).toISOString() };
        const endpointChanged = body.agentEndpoint !== undefined &&
          body.agentEndpoint !== next.agentEndpoint;
        if (endpointChanged) {
          next.agentEndpoint = body.agentEndpoint!;
          next.did = (await createAgentPeerDid(verkeyToBytes(next.verkey), next.agentEndpoint)).did;
        }
        if (body.autoAcceptCredentials) next.autoAcceptCredentials = body.autoAcceptCredentials;
        const op = deps.kv.atomic().check(cur);
        // Existing connections learn the new endpoint through DID Rotate (RFC 0794).
        if (endpointChanged) queueDidRotation(op, orgId, next.agentEndpoint, now);
        if (newKey) {
          next.apiKeyHash = newKey.hash;
          next.apiKeyLookup = newKey.lookup;
          next.keyEpoch = crypto.randomUUID(); // agent tokens of the old key stop working
          op.delete(keys.agentByApiKey(cur.value.apiKeyLookup, orgId))
            .set(keys.agentByApiKey(newKey.lookup, orgId), orgId);
        }
        op.set(keys.agent(orgId), next);
        const { id, walletName, agentEndpoint, did, createdAt } = next;
        emit(op, orgId, "agent.configured", {
          id,
          orgId,
          walletName,
          agentEndpoint,
          did,
          createdAt,
          action: "updated",
        }, now);
        if ((await op.commit()).ok) {
          deps.dispatcher.wake();
          log("info", "agent updated", {
            orgId,
            fields: Object.keys(body).map((k) => k === "apiKey" ? "apiKey (rotated)" : k),
          });
          return c.json(agentView(next), 200);
        }
      }
      throw new ConflictError();
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/orgs/{orgId}/agents",
      tags,
      summary: "Remove the org's agent and its wallet keys (409 while connections exist)",
      middleware: [admin] as const,
      request: {
        params: OrgParams,
        query: z.object({
          force: z.enum(["true", "false"]).optional().openapi({
            description: "true: remove even while the org has connections.",
          }),
        }),
      },
      responses: {
        204: { description: "Removed" },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const force = c.req.valid("query").force === "true";
      const cur = await readAgent(deps.kv, orgId);
      if (!cur.value) throw notFound(`Organization "${orgId}" has no agent configured.`);
      if (!force) {
        const it = deps.kv.list({ prefix: keys.connectionPrefix(orgId) }, { limit: 1 });
        for await (const _ of it) {
          throw conflict(
            `Organization "${orgId}" has connections; remove them first or use ?force=true.`,
          );
        }
      }
      const ok = await deps.kv.atomic().check(cur)
        .delete(keys.agent(orgId))
        .delete(keys.agentByApiKey(cur.value.apiKeyLookup, orgId))
        .commit();
      if (!ok.ok) throw new ConflictError();
      const removed = await deleteWalletKeys(deps.kv, orgId, cur.value.id);
      log("info", "agent removed", { orgId, agentId: cur.value.id, walletKeys: removed, force });
      return c.body(null, 204);
    },
  );

  registerTokenRoute(app, deps);
  return app;
}
