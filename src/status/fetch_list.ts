/**
 * Fetching a status list through the one safe outbound client, and the error every status
 * problem is reported with (it becomes an `unknown` status's message).
 *
 * @module
 */
import type { SafeFetch } from "../outbound/mod.ts";

/** Why a status could not be established: the message of an `unknown` status. */
export class StatusProblem extends Error {}

/** Largest status list body fetched. */
const MAX_LIST_BODY = 1024 * 1024;

/** GETs `url` as text (200 only) with `accept`; throws {@link StatusProblem} saying why not. */
export async function fetchList(
  safeFetch: SafeFetch,
  url: string,
  accept: string,
): Promise<string> {
  let res;
  try {
    res = await safeFetch(url, {
      headers: { accept },
      maxBytes: MAX_LIST_BODY,
      timeoutMs: 10_000,
    });
  } catch (err) {
    throw new StatusProblem(
      `the status list ${url} could not be fetched: ${err instanceof Error ? err.message : err}`,
    );
  }
  if (res.status !== 200) {
    throw new StatusProblem(
      `the status list ${url} could not be fetched: its host answered ${res.status}`,
    );
  }
  return new TextDecoder().decode(res.body);
}
