/**
 * OpenAPI helpers shared by every feature's route declarations.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";

/** The error envelope (CONTRACT.md "Envelopes"). */
export const ErrorSchema = z.object({
  statusCode: z.number(),
  error: z.string(),
  message: z.string().optional(),
}).openapi("Error");

/** Error envelope responses for OpenAPI route definitions. */
export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((code) => [code, {
      description: String(code),
      content: { "application/json": { schema: ErrorSchema } },
    }]),
  );

/** A JSON response of `schema` for a route declaration. */
export const jsonContent = <T>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A UUID field named `what` in its message, with an example for the OpenAPI document. */
export const uuidSchema = (what: string) =>
  z.string().regex(UUID_RE, `${what} must be a UUID.`).openapi({
    format: "uuid",
    example: "0190f0a2-6b1e-7c3d-8e4f-1a2b3c4d5e6f",
  });

/** Path parameter `id`: a record id (a UUID). */
export const RecordIdParam = z.object({
  id: uuidSchema("id").openapi({ param: { name: "id", in: "path" } }),
});
