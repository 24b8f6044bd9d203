/**
 * What the fast-lane and early-lane tests share: a request to the lane, and a snapshot of an
 * answer without its `x-request-id` (new per request, and made by the lanes only when asked for or
 * logged), so that a lane's answer and the route's compare byte for byte.
 */

/** A request to `path` on a local origin. */
export function laneRequest(
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Request {
  return new Request(`http://localhost${path}`, { method, headers });
}

/** Status, headers (but `x-request-id`) and body of an answer. */
export async function snapshot(res: Response) {
  const headers = [...res.headers].filter(([k]) => k !== "x-request-id");
  return { status: res.status, headers, body: await res.text() };
}
