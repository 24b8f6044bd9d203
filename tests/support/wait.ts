/** Polling for tests that watch something happen in another process or server. */

/**
 * Polls `cond` every 25 ms until it returns a truthy value and returns that value; throws
 * `timed out waiting for <what>` after `timeoutMs`. A `cond` that throws fails at once.
 */
export async function waitFor<T>(
  what: string,
  cond: () => T | Promise<T>,
  timeoutMs = 30_000,
): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v as Exclude<T, undefined | null | false>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
