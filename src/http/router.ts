import { OpenAPIHono } from "@hono/zod-openapi";
import type { z } from "zod";
import { badRequest } from "../base/mod.ts";
import type { AppEnv } from "./env.ts";

/** Turns zod issues into the envelope's `details`. */
export function zodDetails(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({
    path: i.path.map(String).join(".") || "(body)",
    message: i.code === "unrecognized_keys"
      ? `Unknown field(s): ${(i as { keys?: string[] }).keys?.join(", ")}.`
      : i.message,
  }));
}

/** Sentence naming what is wrong, for the envelope's `message`. */
export function zodMessage(target: string, error: z.ZodError): string {
  const d = zodDetails(error);
  const first = d[0];
  const where = target === "json" ? "request body" : target === "param" ? "path" : target;
  if (!first) return `The ${where} is not valid.`;
  return `The ${where} is not valid: ${first.path}: ${first.message}${
    d.length > 1 ? ` (and ${d.length - 1} more)` : ""
  }`;
}

/** A feature router: OpenAPI-described routes whose validation failures become 400 envelopes. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw badRequest(zodMessage(result.target, result.error), zodDetails(result.error));
      }
    },
  });
}
