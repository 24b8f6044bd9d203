/**
 * The one way to load something on first use (a protocol stack, a library behind a dynamic
 * `import()`): `lazy(load)` gives a function that starts the load on its first call and hands
 * every caller the same promise, so callers at the same time share one load. A load that fails is
 * forgotten: its callers get the failure, and the next call loads again (a library that could not
 * be fetched or initialised once is not refused for the rest of the process).
 *
 * @example
 * ```ts
 * const loadPex = lazy(() => import("@animo-id/pex"));
 * const { PEX } = await loadPex();
 * ```
 *
 * @module
 */

/** `load`, run on the first call and shared by every caller until it fails. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (loading === undefined) {
      const started = (async () => await load())();
      loading = started;
      started.catch(() => {
        if (loading === started) loading = undefined;
      });
    }
    return loading;
  };
}
