import { credoInterop } from "./availability.ts";
import assert from "node:assert/strict";
import { startCredoIssuer } from "./credo_peer.ts";

function decodeOob(invitationUrl: string): Record<string, unknown> {
  const oob = new URL(invitationUrl).searchParams.get("oob");
  assert.ok(oob, "invitation URL has an oob parameter");
  const b64 = oob.replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "=")));
}

Deno.test(
  "Credo issuer peer starts on 127.0.0.1 and issues OOB 1.1 invitations per handshake",
  credoInterop,
  async () => {
    const issuer = await startCredoIssuer();
    try {
      assert.equal(issuer.endpoint, `http://127.0.0.1:${issuer.didcommPort}`);
      assert.match(issuer.issuerDid, /^did:key:z6Mk/);
      assert.ok(issuer.startupMs > 0, `startup ${issuer.startupMs} ms`);
      console.log(`Credo issuer peer start-up: ${issuer.startupMs} ms`);

      const didexchange = await issuer.createInvitation("didexchange");
      const inv = decodeOob(didexchange.invitationUrl);
      assert.equal(inv["@type"], "https://didcomm.org/out-of-band/1.1/invitation");
      assert.deepEqual(inv.handshake_protocols, ["https://didcomm.org/didexchange/1.1"]);
      const [service] = inv.services as Array<Record<string, unknown>>;
      assert.equal(service?.serviceEndpoint, issuer.endpoint);
      assert.match(String((service?.recipientKeys as string[])[0]), /^did:key:z6Mk/);

      const connections = decodeOob((await issuer.createInvitation("connections")).invitationUrl);
      assert.deepEqual(connections.handshake_protocols, ["https://didcomm.org/connections/1.0"]);
      assert.deepEqual(await issuer.connections(), []);
      assert.deepEqual(await issuer.messages(), []);
      assert.deepEqual(await issuer.problemReports(), []);
    } finally {
      await issuer.close();
    }
  },
);

Deno.test(
  "Credo's DIDComm endpoint rejects a wrong content type with 415 at once",
  credoInterop,
  async () => {
    const issuer = await startCredoIssuer();
    try {
      const res = await fetch(issuer.endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(res.status, 415);
      await res.body?.cancel();
    } finally {
      await issuer.close();
    }
  },
);

Deno.test("Credo issuer control API reports unknown records as errors", credoInterop, async () => {
  const issuer = await startCredoIssuer();
  try {
    await assert.rejects(() => issuer.connection("nope"), /404/);
    await assert.rejects(
      () => issuer.offerCredential({ connectionId: "nope" }),
      /Credo peer POST \/credentials\/offer/,
    );
  } finally {
    await issuer.close();
  }
});

Deno.test("close() stops the Credo peer process and is idempotent", credoInterop, async () => {
  const issuer = await startCredoIssuer();
  await issuer.close();
  await issuer.close();
  await assert.rejects(() => fetch(`http://127.0.0.1:${issuer.controlPort}/health`));
});

Deno.test(
  "Credo issuer + Credo holder complete OOB, DID Exchange, Connections, ping and JSON-LD issuance (node selftest)",
  credoInterop,
  async () => {
    const out = await new Deno.Command(Deno.env.get("NODE_BIN") ?? "node", {
      args: ["selftest.mjs"],
      cwd: new URL("./credo_peer/", import.meta.url).pathname,
      env: { CREDO_LOG: "off" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, `${stdout}\n${new TextDecoder().decode(out.stderr)}`);
    const passed = Number(/selftest: (\d+) passed, 0 failed/.exec(stdout)?.[1] ?? 0);
    assert.ok(passed >= 10, stdout);
  },
);
