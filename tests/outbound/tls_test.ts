/**
 * The safe client over TLS (`src/outbound/transport.ts`) on this Deno and on Deno 2.5.0, the one
 * Deno Deploy runs (docs.deno.com/deploy/reference/runtime). A local https server with a
 * certificate for `svc.test` and `localhost` from a test CA (trusted through the environment of a
 * child process). From Deno 2.7 on the connection is pinned to the address the client resolved
 * and vetted itself: `svc.test`, a name only its own lookup knows, is answered with the request's
 * Host the name's, and the same server reached as `other.test` is refused (its certificate does
 * not name it). On 2.5, without `node:http`'s `lookup`, the client vets first and the runtime
 * connects: `localhost` is answered, and `127.0.0.1`, which the certificate does not name, refused.
 */
import assert from "node:assert/strict";
import { DEPLOY_DENO, npmDeno } from "../support/npm_deno.ts";
import * as x509 from "@peculiar/x509";

const PROBE = new URL("./fixtures/tls_probe.ts", import.meta.url).pathname;

function pem(label: string, der: ArrayBuffer | Uint8Array): string {
  const b64 = btoa(String.fromCharCode(...new Uint8Array(der)));
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

async function probe(deno: string, caPath: string, port: number, names: string[]) {
  const out = await new Deno.Command(deno, {
    args: ["run", "--allow-all", "--no-lock", PROBE, String(port), ...names],
    env: { NODE_EXTRA_CA_CERTS: caPath, DENO_CERT: caPath, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, stderr);
  return new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
}

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** A CA and a server certificate for `names`, as PEM. */
async function serverChain(names: string[]) {
  const caKeys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]) as CryptoKeyPair;
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]) as CryptoKeyPair;
  const notBefore = new Date(Date.now() - 3600_000);
  const notAfter = new Date(Date.now() + 86400_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=TLS test CA",
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${names[0]}`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingKey: caKeys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: alg,
    extensions: [
      new x509.SubjectAlternativeNameExtension(
        names.map((value) => ({ type: "dns" as const, value })),
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  });
  return {
    ca: ca.toString("pem"),
    cert: leaf.toString("pem"),
    key: pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", keys.privateKey)),
  };
}

Deno.test("the safe client over TLS: pinned to the vetted address from Deno 2.7 on, the certificate naming the host; on Deno Deploy's 2.5.0 vetted first", async () => {
  const chain = await serverChain(["svc.test", "localhost"]);
  const dir = await Deno.makeTempDir({ prefix: "tls_" });
  const caPath = `${dir}/ca.pem`;
  await Deno.writeTextFile(caPath, chain.ca);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: chain.cert, key: chain.key, onListen: () => {} },
    (req) => new Response(`host ${req.headers.get("host")}`),
  );
  try {
    const port = server.addr.port;
    const [pinned, right, wrong] = await probe(Deno.execPath(), caPath, port, [
      "svc.test",
      "other.test",
    ]);
    assert.deepEqual(pinned, { pinned: true });
    assert.deepEqual(right, { name: "svc.test", status: 200, body: `host svc.test:${port}` });
    assert.equal(wrong.kind, "network", JSON.stringify(wrong));
    assert.match(wrong.message, /other\.test/);

    const old = await npmDeno(DEPLOY_DENO);
    if (!old.path) {
      if (Deno.env.get("CI") === "true") throw new Error(`no Deno 2.5.0: ${old.why}`);
      console.log(`Deno 2.5.0 skipped: it could not be installed (${old.why})`);
      return;
    }
    const [notPinned, named, unnamed] = await probe(old.path, caPath, port, [
      "localhost",
      "127.0.0.1",
    ]);
    assert.deepEqual(notPinned, { pinned: false });
    assert.deepEqual(named, { name: "localhost", status: 200, body: `host localhost:${port}` });
    assert.equal(unnamed.kind, "network", JSON.stringify(unnamed));
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
