/**
 * The delivery log and manual re-send of dead deliveries (owner/admin of the delivery's org).
 * Expects `c.var.principal` (see `routes.ts`).
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { notFound } from "../base/mod.ts";
import {
  assertOrgId,
  checkOrgAccess,
  createRouter,
  errorResponses,
  isOrgMember,
  OrgId,
  parseLimit,
} from "../http/mod.ts";
import { DELIVERY_STATUSES } from "./delivery_log.ts";
import type { WebhookService } from "./service.ts";

const Attempt = z.object({
  n: z.number(),
  at: z.string(),
  durationMs: z.number(),
  ok: z.boolean(),
  status: z.number().optional(),
  error: z.string().optional(),
}).openapi("DeliveryAttempt");

const Delivery = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  orgId: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  skipped: z.boolean(),
  attempts: z.array(Attempt),
  attemptCount: z.number(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  lastStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  completedAt: z.string().nullable(),
}).openapi("WebhookDelivery");

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

/** The delivery log and manual re-send of dead deliveries. Expects `c.var.principal`. */
export function deliveryRoutes(webhooks: WebhookService) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "get",
      path: "/notification/deliveries",

      operationId: "listWebhookDeliveries",
      summary: "The organization's webhook deliveries with every attempt, newest first",
      tags: ["Notifications"],
      request: {
        query: z.object({
          orgId: OrgId,
          status: z.enum(DELIVERY_STATUSES).optional(),
          cursor: z.string().optional(),
          limit: z.string().optional().openapi({ description: "1 to 200, default 50" }),
        }),
      },
      responses: {
        200: {
          description: "A page of deliveries",
          content: json(
            z.object({ data: z.array(Delivery), nextCursor: z.string().nullable() }),
          ),
        },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const orgId = checkOrgAccess(c.var.principal, q.orgId, "admin");
      const page = await webhooks.deliveries(orgId, {
        limit: parseLimit(q.limit),
        cursor: q.cursor,
        status: q.status,
      });
      return c.json(page, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/deliveries/{id}/retry",

      operationId: "retryWebhookDelivery",
      summary: "Send a dead delivery again, with a fresh retry schedule",
      description:
        "The caller must administer the delivery's organization. `orgId` in the body is optional; when given it must be the delivery's.",
      tags: ["Notifications"],
      request: {
        params: z.object({ id: z.string().min(1).max(200) }),
        body: {
          content: json(z.object({ orgId: z.string().optional() }).strict()),
          required: false,
        },
      },
      responses: {
        202: { description: "Queued again", content: json(Delivery) },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = (c.req.valid("json") ?? {}) as { orgId?: string };
      if (body.orgId !== undefined) assertOrgId(body.orgId);
      const p = c.var.principal;
      const missing = () => notFound(`No webhook delivery "${id}" was found.`);
      const ref = await webhooks.findDelivery(id);
      if (!ref) throw missing();
      if (body.orgId !== undefined && body.orgId !== ref.orgId) throw missing();
      // Another org's record does not leak: 404 unless the caller is at least a member.
      if (!isOrgMember(p, ref.orgId)) throw missing();
      checkOrgAccess(p, ref.orgId, "admin");
      return c.json(await webhooks.retryDelivery(id), 202);
    },
  );

  return app;
}
