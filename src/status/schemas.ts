/**
 * The schema of a credential's top-level `status` (shown in `GET /openapi.json`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";

/** `status` of a stored credential. */
export const CredentialStatusSchema = z.object({
  state: z.enum(["valid", "revoked", "suspended", "unknown"]).openapi({
    description: "From the issuer's status list. `unknown`: no status entry, or the list could " +
      "not be fetched or verified (said in `message`); a list that does not verify is never " +
      "`valid`.",
  }),
  checkedAt: z.string().openapi({ format: "date-time" }),
  message: z.string().optional(),
}).openapi("CredentialStatus");
