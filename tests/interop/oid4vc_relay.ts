/**
 * A relay between this service and the Credo OpenID4VCI issuer: a real local HTTP server that
 * forwards every request to the issuer, keeps the bodies of the holder's POST requests (to read
 * the proofs it sent), and can alter the credential in transit (flip a disclosure, or the
 * signature, of the first or the last credential of a batch), or stop answering (the issuer is down). The issuer publishes the relay's origin as
 * its own, so every URL the holder follows goes through it.
 */
import { serveLocal } from "../support/context.ts";
import { holdPort } from "../support/ports.ts";

export type RelayMode = "pass" | "flip-disclosure" | "flip-signature";

/** Which credential of a batch answer (`credentials`) is altered. */
export type RelayTarget = "first" | "last";

const enc = new TextEncoder();
const b64u = (s: string) =>
  btoa(String.fromCharCode(...enc.encode(s))).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
const unb64u = (s: string) =>
  new TextDecoder().decode(
    Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)),
  );

/** Alters an SD-JWT: the first disclosure's value changed, or one signature character changed. */
export function tamper(compact: string, mode: Exclude<RelayMode, "pass">): string {
  const parts = compact.split("~");
  if (mode === "flip-signature") {
    const [h, p, s] = parts[0]!.split(".");
    parts[0] = `${h}.${p}.${s!.startsWith("A") ? "B" : "A"}${s!.slice(1)}`;
  } else {
    const d = JSON.parse(unb64u(parts[1]!)) as unknown[];
    d[d.length - 1] = typeof d[d.length - 1] === "string" ? "Mallory" : { tampered: true };
    parts[1] = b64u(JSON.stringify(d));
  }
  return parts.join("~");
}

/**
 * Starts a relay on a free port (or `port`) to `target` (an origin; or later, with `setTarget`, when
 * the issuer is started with the relay's origin and reports its own port).
 */
export function startRelay(target = "", port = 0) {
  let mode: RelayMode = "pass";
  let altered: RelayTarget = "first";
  const tampered: string[] = [];
  const posts: { path: string; body: string }[] = [];
  const handler = async (req: Request) => {
    const url = new URL(req.url);
    const headers = new Headers(req.headers);
    headers.delete("host");
    const sent = req.method === "GET" || req.method === "HEAD" ? undefined : await req.text();
    if (sent !== undefined) posts.push({ path: url.pathname, body: sent });
    const res = await fetch(target + url.pathname + url.search, {
      method: req.method,
      headers,
      body: sent,
      redirect: "manual",
    });
    let body = await res.text();
    if (mode !== "pass" && res.ok && /credential$/.test(url.pathname) && req.method === "POST") {
      const json = JSON.parse(body);
      if (Array.isArray(json.credentials)) {
        const one = json.credentials[altered === "first" ? 0 : json.credentials.length - 1];
        one.credential = tamper(one.credential, mode);
      } else json.credential = tamper(json.credential, mode);
      body = JSON.stringify(json);
      tampered.push(url.pathname);
    }
    const out = new Headers();
    for (const name of ["content-type", "www-authenticate", "dpop-nonce"]) {
      const v = res.headers.get(name);
      if (v) out.set(name, v);
    }
    return new Response(body, { status: res.status, headers: out });
  };
  let server = port === 0 ? serveLocal(handler) : serveOn(port, handler);
  const boundPort = server.port;
  let held: { close(): Promise<void> } | undefined;
  return {
    origin: `http://127.0.0.1:${boundPort}`,
    port: boundPort,
    tampered,
    /** Every request body the holder sent, in order. */
    posts,
    /** Alters credentials from now on (`which`: the first or the last of a batch). */
    setMode(m: RelayMode, which: RelayTarget = "first") {
      mode = m;
      altered = which;
    },
    /** Where requests go from now on (an origin). */
    setTarget(origin: string) {
      target = origin;
    },
    /** Stops answering: every connection is closed at once (the port stays this relay's). */
    async down() {
      await server.close();
      held = holdPort(boundPort);
    },
    /** Answers again on the same port. */
    async up() {
      await held?.close();
      held = undefined;
      server = serveOn(boundPort, handler);
    },
    close: async () => {
      await held?.close();
      await server.close().catch(() => {});
    },
  };
}

function serveOn(port: number, handler: (req: Request) => Promise<Response>) {
  const s = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, handler);
  return { port, close: () => s.shutdown() };
}
