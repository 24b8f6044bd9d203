/**
 * Registration and management of an org's webhook endpoint (owner/admin of the named org).
 * Expects `c.var.principal` (see `routes.ts`).
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { checkOrgAccessOf, createRouter, errorResponses, OrgId } from "../http/mod.ts";
import type { WebhookService } from "./service.ts";

const OrgBody = z.object({ orgId: OrgId }).strict()
  .openapi("WebhookOrgRequest");

const RegisterBody = z.object({
  orgId: OrgId,
  notificationWebhook: z.string().openapi({ example: "https://hooks.example.com/ssi" }),
}).strict().openapi("RegisterWebhookRequest");

const Registered = z.object({
  statusCode: z.literal(201),
  success: z.literal(true),
  message: z.string(),
  data: z.object({
    orgId: z.string(),
    notificationWebhook: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    secret: z.string().optional().openapi({
      description: "whsec_ + base64 of 32 bytes; only in the response that created it.",
    }),
  }),
}).openapi("RegisterWebhookResponse");

const EndpointView = z.object({
  orgId: z.string(),
  notificationWebhook: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  enabled: z.boolean(),
  disabledAt: z.string().nullable(),
  disabledReason: z.string().nullable(),
  secretCreatedAt: z.string().nullable(),
  previousSecretExpiresAt: z.string().nullable(),
}).openapi("WebhookEndpoint");

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const OrgQuery = z.object({ orgId: OrgId });

/** Registration and management of an org's webhook endpoint. */
export function endpointRoutes(webhooks: WebhookService) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/register/webhook-endpoint",

      operationId: "registerWebhookEndpoint",
      summary: "Register or replace the organization's webhook endpoint",
      description:
        "The first registration creates the signing secret and shows it once in `data.secret`.",
      tags: ["Notifications"],
      request: { body: { content: json(RegisterBody), required: true } },
      responses: {
        201: { description: "Registered", content: json(Registered) },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const orgId = checkOrgAccessOf(c, body.orgId, "admin");
      const { endpoint, secret } = await webhooks.register(orgId, body.notificationWebhook);
      return c.json({
        statusCode: 201 as const,
        success: true as const,
        message: secret
          ? `Webhook endpoint registered for organization "${orgId}". Store the signing secret now: it is not shown again.`
          : `Webhook endpoint of organization "${orgId}" updated; the signing secret is unchanged.`,
        data: {
          orgId,
          notificationWebhook: endpoint.url,
          createdAt: endpoint.createdAt,
          updatedAt: endpoint.updatedAt,
          ...(secret ? { secret } : {}),
        },
      }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/notification/webhook-endpoint",

      operationId: "getWebhookEndpoint",
      summary: "Read the organization's webhook endpoint (never the secret)",
      tags: ["Notifications"],
      request: { query: OrgQuery },
      responses: {
        200: { description: "The endpoint", content: json(EndpointView) },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const orgId = checkOrgAccessOf(c, c.req.valid("query").orgId, "admin");
      return c.json(await webhooks.get(orgId), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/notification/webhook-endpoint",

      operationId: "removeWebhookEndpoint",
      summary: "Remove the organization's webhook endpoint and its secrets",
      description: "Deliveries due later are skipped. Registering again creates a new secret.",
      tags: ["Notifications"],
      request: { query: OrgQuery },
      responses: {
        204: { description: "Removed" },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const orgId = checkOrgAccessOf(c, c.req.valid("query").orgId, "admin");
      await webhooks.remove(orgId);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/webhook-endpoint/rotate-secret",

      operationId: "rotateWebhookSecret",
      summary: "Create a new signing secret; the old one keeps signing beside it for 24 h",
      tags: ["Notifications"],
      request: { body: { content: json(OrgBody), required: true } },
      responses: {
        200: {
          description: "The new secret, shown once",
          content: json(z.object({ data: z.object({ secret: z.string() }) })),
        },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const orgId = checkOrgAccessOf(c, c.req.valid("json").orgId, "admin");
      return c.json({ data: { secret: await webhooks.rotateSecret(orgId) } }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/webhook-endpoint/test",

      operationId: "sendWebhookTest",
      summary: "Send a webhook.test event to the organization's endpoint",
      tags: ["Notifications"],
      request: { body: { content: json(OrgBody), required: true } },
      responses: {
        202: {
          description: "The event is queued",
          content: json(z.object({ data: z.object({ eventId: z.string() }) })),
        },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const p = c.var.principal;
      const orgId = checkOrgAccessOf(c, c.req.valid("json").orgId, "admin");
      return c.json({ data: { eventId: await webhooks.sendTest(orgId, p.sub) } }, 202);
    },
  );

  return app;
}
