/**
 * Reading untyped JSON from issuers and credentials: a non-empty string, a plain object, a list
 * of strings, or undefined.
 *
 * @module
 */

/** `v` when it is a non-empty string. */
export const str = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : undefined;

/** `v` when it is a plain JSON object (not an array). */
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : undefined;

/** The strings of `v` when it is an array. */
export const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
