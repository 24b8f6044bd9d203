/**
 * Org agent routes: `POST /orgs/{orgId}/agents/configure`, `GET`, `PATCH`, `DELETE
 * /orgs/{orgId}/agents` (owner/admin of the org, never an agent token), and `POST /agent/token`.
 *
 * Check order: 401 (token) → 400 (malformed `orgId`) → 403 (role) → 400 (body) → 404/409.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { badRequest } from "../base/mod.ts";
import {
  assertOrgId,
  clientAddress,
  createRouter,
  errorResponses,
  jsonContent,
  OrgParams,
  zodDetails,
  zodMessage,
} from "../http/mod.ts";
import { readApiKey } from "./api_key.ts";
import {
  AgentSchema,
  configureBody,
  ConfigureResponse,
  patchBody,
  TokenBody,
  TokenResponse,
} from "./schemas.ts";
import type { AgentService } from "./service.ts";

/** What the agent routes use. */
export interface AgentRoutesDeps {
  agents: AgentService;
  /** `OUTBOUND_REQUIRE_HTTPS`: agent endpoints must be https. */
  requireHttps: boolean;
  /** `TRUST_PROXY_HEADERS`: the client address of token limits comes from X-Forwarded-For. */
  trustProxyHeaders: boolean;
}

/** The agents feature router. */
export function agentRoutes(
  { agents, requireHttps, trustProxyHeaders }: AgentRoutesDeps,
) {
  const app = createRouter();
  const tags = ["Agents"];

  app.openapi(
    createRoute({
      method: "post",
      path: "/orgs/{orgId}/agents/configure",
      operationId: "configureAgent",
      tags,
      summary: "Create the org's agent: wallet key, did:peer:2, API key (stored hashed)",
      request: {
        params: OrgParams,
        body: {
          required: true,
          content: { "application/json": { schema: configureBody(requireHttps) } },
        },
      },
      responses: {
        201: jsonContent(ConfigureResponse, "Configured"),
        ...errorResponses(400, 401, 403, 409, 415),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const data = await agents.configure(orgId, c.req.valid("json"));
      return c.json({
        statusCode: 201 as const,
        success: true as const,
        message: `Agent "${data.walletName}" is configured for organization "${orgId}".`,
        data,
      }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/orgs/{orgId}/agents",
      operationId: "getAgent",
      tags,
      summary: "The org's agent configuration (never the API key)",
      request: { params: OrgParams },
      responses: {
        200: jsonContent(AgentSchema, "Agent"),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await agents.view(c.req.valid("param").orgId), 200),
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/orgs/{orgId}/agents",
      operationId: "updateAgent",
      tags,
      summary: "Change the endpoint, rotate the API key, or set the auto-accept policies",
      description:
        "A new agentEndpoint also reaches existing connections: each completed one is moved to a " +
        "new key and did:peer:2 naming it with DID Rotate 1.0 (RFC 0794), in the background. A " +
        "new apiKey ends the old key's agent tokens at once.",
      request: {
        params: OrgParams,
        body: {
          required: true,
          content: { "application/json": { schema: patchBody(requireHttps) } },
        },
      },
      responses: {
        200: jsonContent(AgentSchema, "Updated agent"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      return c.json(await agents.update(orgId, c.req.valid("json")), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/orgs/{orgId}/agents",
      operationId: "removeAgent",
      tags,
      summary: "Remove the org's agent and its wallet keys (409 while connections exist)",
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
      await agents.remove(orgId, { force: c.req.valid("query").force === "true" });
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/agent/token",
      operationId: "issueAgentToken",
      tags,
      summary: "Exchange an org's agent API key for a 15-minute org-scoped token",
      description:
        "Send the key as the raw `authorization` header value (or `x-api-key`). The org is found " +
        'from the key; name it (`?orgId=`, `x-org-id` or JSON body `{"orgId": "…"}`) ' +
        "if the key is shared. Returns `{token, expiresIn}`. Every attempt counts: 10 a minute " +
        "per client address and 30 per organization, then 429 with Retry-After.",
      security: [],
      responses: {
        200: jsonContent(TokenResponse, "Token"),
        ...errorResponses(400, 401, 429),
      },
    }),
    async (c) => {
      const apiKey = readApiKey({ get: (n) => c.req.header(n) });
      const body = await optionalBody(await c.req.text());
      const named = c.req.query("orgId") ?? c.req.header("x-org-id") ?? body.orgId;
      if (named !== undefined) assertOrgId(named);
      const address = clientAddress(c, trustProxyHeaders);
      return c.json(await agents.issueToken(apiKey, named, address), 200);
    },
  );

  return app;
}

/** The optional JSON body `{orgId?}` of `POST /agent/token`; an empty body is `{}`. */
async function optionalBody(text: string): Promise<{ orgId?: string }> {
  if (text.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest("The request body is not valid JSON.");
  }
  const parsed = await TokenBody.safeParseAsync(json);
  if (!parsed.success) {
    throw badRequest(zodMessage("json", parsed.error), zodDetails(parsed.error));
  }
  return parsed.data;
}
