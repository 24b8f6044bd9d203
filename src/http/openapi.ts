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
