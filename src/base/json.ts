/**
 * Reading untyped JSON (from peers, issuers, verifiers and credentials): the one test of a plain
 * object, and the readers of a non-empty string, a plain object or a list of strings.
 *
 * @module
 */

/** True when `v` is a plain JSON object: an object, not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `v` when it is a non-empty string. */
export const str = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : undefined;

/** `v` when it is a plain JSON object (not an array). */
export const obj = (v: unknown): Record<string, unknown> | undefined => isObject(v) ? v : undefined;

/** The strings of `v` when it is an array. */
export const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
