/**
 * What the tests of the DID routes' pipeline share: a request, and a snapshot of an answer without
 * its `x-request-id` (new per request, and made only when asked for or logged), so that two answers
 * (the early lane's and the app's, a cold and a warm one) compare byte for byte.
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
