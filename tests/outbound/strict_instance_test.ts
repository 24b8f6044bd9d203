/**
 * A strict instance (`OUTBOUND_ALLOW_PRIVATE` unset), built by the service's own composition
 * (`buildServices`), refuses every outbound surface whose address a stranger chooses when that
 * address is loopback, private or the cloud metadata address, named directly or through DNS
 * (CONTRACT "Environment", README "Outbound HTTP"); and reaches the hosts the operator configured
 * (chain RPC, the PLC directory, the universal resolver, `AUTH_JWKS_URL`) wherever they are.
 *
 * Refused before connecting: every loopback target is a trap (a TCP listener on 127.0.0.1 that
 * counts every connection it is offered, and no row may give it one); the private and metadata
 * targets are names the test's DNS resolves (or IP literals), and the refusal must be the address
 * policy's sentence naming the range and the address, not a failure to connect. The rows are in
 * `strict_surfaces.ts`.
 */
import assert from "node:assert/strict";
import {
  createIdp,
  createTestContext,
  randomSecretsKey,
  serveLocal,
  type TestContext,
} from "../support/context.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import { storeSdJwt } from "../openid4vp/stored_credentials.ts";
import { SURFACES, type Target, type World } from "./strict_surfaces.ts";

/** A TCP listener on 127.0.0.1 that counts (and closes) every connection it is offered. */
function trap() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    connections: () => connections,
    close: async () => {
      listener.close();
      await accepting;
    },
  };
}

/** The test's DNS: `.public.test` names are public, the others what their name says. */
const DNS: Record<string, string> = {
  "loopback.test": "127.0.0.1",
  "private.test": "10.0.0.7",
  "metadata.test": "169.254.169.254",
};
const resolveHost = (host: string) => {
  if (host.endsWith(".public.test")) return Promise.resolve(["93.184.216.34"]);
  const a = DNS[host];
  return a ? Promise.resolve([a]) : Promise.reject(new Error(`no such host ${host}`));
};

function targets(port: number): Target[] {
  const t = (label: string, host: string, isName: boolean, reason: RegExp): Target => ({
    label,
    base: `http://${host}:${port}`,
    host: `${host}:${port}`,
    isName,
    reason,
  });
  return [
    t("loopback (127.0.0.1)", "127.0.0.1", false, /a loopback address \(127\.0\.0\.1\)/),
    t("loopback (a name)", "loopback.test", true, /a loopback address \(127\.0\.0\.1\)/),
    t("private (10.0.0.7)", "10.0.0.7", false, /a private address \(10\.0\.0\.7\)/),
    t("private (a name)", "private.test", true, /a private address \(10\.0\.0\.7\)/),
    t("metadata (169.254.169.254)", "169.254.169.254", false, /metadata\) address \(169\./),
    t("metadata (a name)", "metadata.test", true, /metadata\) address \(169\./),
  ];
}

Deno.test("strict instance: every outbound surface a stranger chooses refuses loopback, private and metadata addresses before connecting; operator-configured hosts are reached", async () => {
  const snare = trap();
  const operator = (() => {
    const seen: string[] = [];
    let jwks: unknown = { keys: [] };
    const server = serveLocal(async (req) => {
      const path = new URL(req.url).pathname;
      seen.push(path);
      await req.body?.cancel();
      if (path === "/jwks") return Response.json(jwks);
      if (path.startsWith("/rpc")) {
        return Response.json({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "no" } });
      }
      return Response.json({ error: "notFound" }, { status: 404 });
    });
    return { ...server, seen, setJwks: (v: unknown) => jwks = v };
  })();
  const idp = await createIdp();
  operator.setJwks({ keys: [idp.publicJwk] });
  const list = targets(snare.port);
  const dir = await Deno.makeTempDir();
  const env = {
    SECRETS_KEY: randomSecretsKey(),
    OUTBOUND_REQUIRE_HTTPS: "false",
    JSONLD_CONTEXT_ALLOW: list.map((t) => `${t.base}/ctx/`).join(","),
    DID_ETHR_NETWORKS: JSON.stringify([{
      name: "dev",
      chainId: 31337,
      rpcUrl: `${operator.url}/rpc`,
      registry: "0xdca7ef03e98e0dc2b855be647c39abe984fcf21b",
    }]),
    DID_PLC_DIRECTORY_URL: `${operator.url}/plc`,
    UNIVERSAL_RESOLVER_URL: `${operator.url}/ur`,
  };
  const make = (allowPrivate: string | undefined) =>
    createTestContext({
      idp,
      jwksUrl: `${operator.url}/jwks`,
      kvPath: `${dir}/kv.sqlite3`,
      env: { ...env, OUTBOUND_ALLOW_PRIVATE: allowPrivate },
      build: { resolveHost },
    });
  let strict: TestContext | undefined;
  let open: TestContext | undefined;
  try {
    open = await make("true");
    strict = await make(undefined);
    assert.equal(strict.services.config.outbound.allowPrivate, false, "the instance is strict");
    const org = "org-strict";
    await configureAgent(open, org, "http://agent.public.test/didcomm");
    await storeSdJwt(open, org, { given_name: "Erika" });
    let n = 0;
    const world: World = {
      strict,
      open,
      org,
      token: await strict.token({ [org]: ["owner"] }),
      freshOrg: () => `org-strict-${++n}`,
      agentOrg: async () => {
        const fresh = `org-strict-${++n}`;
        await configureAgent(strict!, fresh, "http://agent.public.test/didcomm");
        return { org: fresh, token: await strict!.token({ [fresh]: ["owner"] }) };
      },
    };

    // Stranger-chosen surfaces: refused, naming the range; the trap sees no connection.
    for (const surface of SURFACES) {
      for (const target of list) {
        if (surface.namesOnly && !target.isName) continue;
        const what = `${surface.name} → ${target.label}`;
        const prepared = surface.prepare ? await surface.prepare(world, target) : "";
        const said = await surface.refuse(world, target, prepared);
        assert.match(said, target.reason, `${what}: ${said}`);
        assert.equal(snare.connections(), 0, `${what}: the trap was connected to`);
      }
    }

    // Operator-configured hosts on loopback: reached by the strict instance all the same.
    const token = world.token;
    const get = (path: string) => strict!.call("GET", path, { token });
    assert.equal((await get("/me")).status, 200, "AUTH_JWKS_URL read on loopback");
    assert.ok(operator.seen.includes("/jwks"));
    await (await get("/dids/did:ethr:dev:0x70997970c51812dc3a010c7d01b50e0d17dc79c8")).body
      ?.cancel();
    assert.ok(operator.seen.some((p) => p.startsWith("/rpc")), "chain RPC reached");
    await (await get("/dids/did:plc:ewvi7nxzyoun6zhxrhs64oiz")).body?.cancel();
    assert.ok(
      operator.seen.includes("/plc/did:plc:ewvi7nxzyoun6zhxrhs64oiz/log/audit"),
      `PLC directory reached: ${operator.seen.join(" ")}`,
    );
    await (await get("/dids/did:example:123456")).body?.cancel();
    assert.ok(
      operator.seen.includes("/ur/1.0/identifiers/did:example:123456"),
      `universal resolver reached: ${operator.seen.join(" ")}`,
    );
    assert.equal(snare.connections(), 0);
  } finally {
    await strict?.close();
    await open?.close();
    await operator.close();
    await snare.close();
    await Deno.remove(dir, { recursive: true });
  }
});
