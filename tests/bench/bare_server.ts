/** A bare Deno.serve returning fixed bytes: the ceiling for our routes. `deno run -A bare_server.ts <port> <file>` */
const [port, file] = Deno.args;
const body = await Deno.readFile(file!);
const headers = { "content-type": "application/json" };
Deno.serve(
  { port: Number(port), hostname: "127.0.0.1", onListen: () => {} },
  () => new Response(body, { headers }),
);
