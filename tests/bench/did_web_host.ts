/**
 * For tests/bench/did_wrk.sh: a local did:web host on 127.0.0.1 serving
 * `/.well-known/did.json` for `did:web:127.0.0.1%3A<port>`, over https when CERT and KEY (PEM
 * files) are given, else http. Usage: deno run -A did_web_host.ts <port>
 */
const port = Number(Deno.args[0] ?? 18443);
const did = `did:web:127.0.0.1%3A${port}`;
const doc = {
  "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/ed25519-2018/v1"],
  id: did,
  verificationMethod: [{
    id: `${did}#owner`,
    type: "Ed25519VerificationKey2018",
    controller: did,
    publicKeyBase58: "H3C2AVvLMv6gmMNam3uVAjZpfkcJCwDwnZn6z3wXmqPV",
  }],
  authentication: [`${did}#owner`],
  assertionMethod: [`${did}#owner`],
  service: [{
    id: `${did}#didcomm`,
    type: "did-communication",
    serviceEndpoint: "https://agent.example/didcomm",
    recipientKeys: [`${did}#owner`],
  }],
};
const body = JSON.stringify(doc);
const cert = Deno.env.get("CERT");
const key = Deno.env.get("KEY");
const tls = cert && key
  ? { cert: Deno.readTextFileSync(cert), key: Deno.readTextFileSync(key) }
  : {};
Deno.serve(
  { port, hostname: "127.0.0.1", ...tls, onListen: () => {} },
  (req) =>
    new URL(req.url).pathname === "/.well-known/did.json"
      ? new Response(body, { headers: { "content-type": "application/did+json" } })
      : new Response("not found", { status: 404 }),
);
