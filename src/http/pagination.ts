/**
 * List paging of the API: `?limit=` (default 50, max 200) and `?cursor=`, `?state=` where the
 * records have states, and the `{data, nextCursor}` page a list answers.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { badRequest } from "../base/mod.ts";

/** Parses `?limit=` (default 50, max 200) with a 400 on nonsense. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 50;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 200) {
    throw badRequest(`limit must be an integer from 1 to 200, got "${raw}".`);
  }
  return n;
}

/** `?limit=&cursor=` (`limit` is read by {@link parseLimit}). */
export const PageQuery = z.object({
  limit: z.string().optional().openapi({ param: { name: "limit", in: "query" } }),
  cursor: z.string().optional().openapi({ param: { name: "cursor", in: "query" } }),
});

/** `?state=&limit=&cursor=`: a page of records, those in one of `states` when `state` is given. */
export function stateListQuery<S extends readonly [string, ...string[]]>(states: S) {
  return z.object({
    state: z.enum(states).optional().openapi({ param: { name: "state", in: "query" } }),
    ...PageQuery.shape,
  });
}

/** A page of `item`s, `{data, nextCursor}`, shown as schema `name` in `/openapi.json`. */
export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() }).openapi(name);
}
