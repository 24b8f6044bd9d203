import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errorResponses } from "../http/openapi.ts";
import type { AppDeps } from "../deps.ts";
import { conflict, notFound } from "../errors.ts";
import { requireOrgAdmin } from "../http/auth.ts";
import type { AppEnv } from "../http/env.ts";
import { createRouter } from "../http/router.ts";
import { keys } from "../kv/keys.ts";
import { commitOrConflict } from "../kv/store.ts";
import { emit } from "./emit.ts";
import {
  createSecret,
  endpointView,
  readEndpoint,
  rotateSecrets,
  type WebhookEndpoint,
} from "./endpoint.ts";
import { validateOrgId, validateWebhookUrl } from "./validate.ts";

const OrgBody = z.object({ orgId: z.string().openapi({ example: "org-a" }) }).strict()
  .openapi("WebhookOrgRequest");

const RegisterBody = z.object({
  orgId: z.string().openapi({ example: "org-a" }),
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
const OrgQuery = z.object({ orgId: z.string() });

/** Admin check for org-level webhook operations: 400 bad org id, then 403 without the role. */
function adminOf(c: Context<AppEnv>, orgId: string): string {
  validateOrgId(orgId);
  requireOrgAdmin(c.var.principal, orgId);
  return orgId;
}

async function mustRead(deps: AppDeps, orgId: string): Promise<Deno.KvEntry<WebhookEndpoint>> {
  const entry = await readEndpoint(deps.kv, orgId);
  if (!entry.value) {
    throw notFound(`No webhook endpoint is registered for organization "${orgId}".`);
  }
  return entry as Deno.KvEntry<WebhookEndpoint>;
}

/** Registration and management of an org's webhook endpoint. Expects `c.var.principal`. */
export function endpointRoutes(deps: AppDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/register/webhook-endpoint",
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
      const orgId = adminOf(c, body.orgId);
      await validateWebhookUrl(body.notificationWebhook, deps.config.outbound);
      const now = deps.now();
      const at = new Date(now).toISOString();
      const cur = await readEndpoint(deps.kv, orgId);
      let secret: string | undefined;
      let next: WebhookEndpoint;
      if (cur.value) {
        next = { ...cur.value, url: body.notificationWebhook, updatedAt: at };
        delete next.disabledAt;
        delete next.disabledReason;
      } else {
        const created = await createSecret(deps.secrets, orgId, now);
        secret = created.secret;
        next = {
          orgId,
          url: body.notificationWebhook,
          createdAt: at,
          updatedAt: at,
          secrets: [created.stored],
        };
      }
      await commitOrConflict(
        deps.kv.atomic().check(cur).set(keys.webhook(orgId), next),
        `The webhook endpoint of organization "${orgId}" was changed at the same time; try again.`,
      );
      return c.json({
        statusCode: 201 as const,
        success: true as const,
        message: secret
          ? `Webhook endpoint registered for organization "${orgId}". Store the signing secret now: it is not shown again.`
          : `Webhook endpoint of organization "${orgId}" updated; the signing secret is unchanged.`,
        data: {
          orgId,
          notificationWebhook: next.url,
          createdAt: next.createdAt,
          updatedAt: next.updatedAt,
          ...(secret ? { secret } : {}),
        },
      }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/notification/webhook-endpoint",
      summary: "Read the organization's webhook endpoint (never the secret)",
      tags: ["Notifications"],
      request: { query: OrgQuery },
      responses: {
        200: { description: "The endpoint", content: json(EndpointView) },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const orgId = adminOf(c, c.req.valid("query").orgId);
      const entry = await mustRead(deps, orgId);
      return c.json(endpointView(entry.value, deps.now()), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/notification/webhook-endpoint",
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
      const orgId = adminOf(c, c.req.valid("query").orgId);
      const entry = await mustRead(deps, orgId);
      await commitOrConflict(deps.kv.atomic().check(entry).delete(entry.key));
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/webhook-endpoint/rotate-secret",
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
      const orgId = adminOf(c, c.req.valid("json").orgId);
      const entry = await mustRead(deps, orgId);
      const now = deps.now();
      const created = await createSecret(deps.secrets, orgId, now);
      const next: WebhookEndpoint = {
        ...entry.value,
        secrets: rotateSecrets(entry.value, created.stored, now),
        updatedAt: new Date(now).toISOString(),
      };
      await commitOrConflict(deps.kv.atomic().check(entry).set(entry.key, next));
      return c.json({ data: { secret: created.secret } }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/webhook-endpoint/test",
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
      const orgId = adminOf(c, c.req.valid("json").orgId);
      const entry = await mustRead(deps, orgId);
      if (entry.value.disabledAt) {
        throw conflict(
          `The webhook endpoint of organization "${orgId}" is disabled (${entry.value.disabledReason}); register it again first.`,
        );
      }
      const now = deps.now();
      const op = deps.kv.atomic().check(entry);
      const event = emit(op, orgId, "webhook.test", {
        message: "This is a test event.",
        requestedBy: c.var.principal.sub,
      }, now);
      await commitOrConflict(op);
      deps.dispatcher.wake();
      return c.json({ data: { eventId: event.id } }, 202);
    },
  );

  return app;
}
