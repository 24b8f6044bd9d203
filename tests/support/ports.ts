/**
 * Hosts that are down, for tests, without a port that "was just free": a port a test closed can be
 * taken by another test running in parallel (every server here listens on port 0), and then the
 * "down" host answers after all.
 */

/**
 * An origin nothing listens on: 127.0.0.1, port 1 (tcpmux, reserved). Port 0 never hands out a
 * port below 1024, so no test server can be there: a connection is refused at once.
 */
export const REFUSING_ORIGIN = "http://127.0.0.1:1";

/**
 * Keeps `port` of 127.0.0.1 (default: a free one, the system's pick) while its server is down:
 * every connection is accepted and closed at once (a client sees the host fail), and no other
 * process can bind the port meanwhile. Listen right after the server shut down; `close()` just
 * before it listens again.
 */
export function holdPort(port = 0): { port: number; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const accepting = (async () => {
    for await (const conn of listener) conn.close();
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close: async () => {
      try {
        listener.close();
      } catch { /* closed already */ }
      await accepting;
    },
  };
}
