/** A relay in front of a DIDComm endpoint, as an operator might put one; counts what it forwards. */
export function relay(target: string): {
  url: string;
  forwarded: () => number;
  close: () => Promise<void>;
} {
  let forwarded = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    forwarded++;
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": req.headers.get("content-type") ?? "" },
      body: await req.arrayBuffer(),
    });
    return new Response(await res.arrayBuffer(), { status: res.status });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/didcomm`,
    forwarded: () => forwarded,
    close: () => server.shutdown(),
  };
}
