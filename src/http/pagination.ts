/**
 * List paging parameters of the API: `?limit=` (default 50, max 200) and `?cursor=`.
 *
 * @module
 */
import { badRequest } from "../errors.ts";

/** Parses `?limit=` (default 50, max 200) with a 400 on nonsense. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 50;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 200) {
    throw badRequest(`limit must be an integer from 1 to 200, got "${raw}".`);
  }
  return n;
}
