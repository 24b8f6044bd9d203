/**
 * did:plc as a method of this service: `DID_PLC_DIRECTORY_URL`, the outbound client's rules on the
 * directory (address policy, https, size cap) as on every operator-configured URL, the listings
 * (`/1.0/methods`, `/1.0/testIdentifiers`), and the verifier loaded on first use only.
 */
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../src/config/config.ts";
import { createTestContext } from "../support/context.ts";
import { plcContext, plcDirectory } from "./plc_directory.ts";
import { denoInfo, staticReach } from "../structure/import_rules.ts";

const LOG = JSON.parse(
  Deno.readTextFileSync(new URL("./vectors/plc/log_bskyapp.json", import.meta.url)),
);
const DID: string = LOG[0].did;
const ROOT = new URL("../../", import.meta.url);

Deno.test("DID_PLC_DIRECTORY_URL: https://plc.directory unless set; a malformed one is refused", () => {
  const base = { DEV_MODE: "true" };
  assert.equal(parseConfig(base).didPlcDirectoryUrl, "https://plc.directory");
  assert.equal(
    parseConfig({ ...base, DID_PLC_DIRECTORY_URL: "https://plc.example/" }).didPlcDirectoryUrl,
    "https://plc.example",
  );
  assert.throws(
    () => parseConfig({ ...base, DID_PLC_DIRECTORY_URL: "plc.directory" }),
    (e: unknown) => e instanceof ConfigError && /DID_PLC_DIRECTORY_URL/.test(e.message),
  );
});

Deno.test("did:plc: the directory is reached only as the outbound policy allows", async () => {
  const dir = plcDirectory({ logs: { [DID]: LOG } });
  const cases: { env: Record<string, string>; why: RegExp }[] = [
    { env: { OUTBOUND_ALLOW_PRIVATE: "false" }, why: /loopback|private|not reach/i },
    { env: { OUTBOUND_REQUIRE_HTTPS: "true" }, why: /https/i },
  ];
  try {
    for (const c of cases) {
      const { ctx, get } = await plcContext(dir.url, { env: c.env });
      try {
        const r = await get(`/dids/${DID}`);
        assert.equal(r.status, 500, JSON.stringify(r.body));
        assert.equal(r.body.didResolutionMetadata.error, "internalError");
        assert.match(String(r.body.didResolutionMetadata.message), c.why);
      } finally {
        await ctx.close();
      }
    }
    assert.equal(dir.seen.length, 0, "a refused directory URL is never requested");
    // Allowed: it resolves.
    const { ctx, get } = await plcContext(dir.url);
    try {
      assert.equal((await get(`/dids/${DID}`)).status, 200);
    } finally {
      await ctx.close();
    }
  } finally {
    await dir.close();
  }
});

Deno.test("did:plc: a log over the size cap (1 MiB) is not read: internalError", async () => {
  const padded = [{ ...LOG[0], padding: "x".repeat(1024 * 1024) }, LOG[1]];
  const dir = plcDirectory({ logs: { [DID]: padded } });
  const { ctx, get } = await plcContext(dir.url);
  try {
    const r = await get(`/dids/${DID}`);
    assert.equal(r.status, 500);
    assert.equal(r.body.didResolutionMetadata.error, "internalError");
    assert.match(String(r.body.didResolutionMetadata.message), /large|bytes|limit/i);
  } finally {
    await ctx.close();
    await dir.close();
  }
});

Deno.test("did:plc: a directory answer that is not JSON is internalError", async () => {
  const dir = plcDirectory({ logs: { [DID]: "<html>oops</html>" } });
  const { ctx, get } = await plcContext(dir.url);
  try {
    const r = await get(`/dids/${DID}`);
    assert.equal(r.status, 500);
    assert.equal(r.body.didResolutionMetadata.error, "internalError");
  } finally {
    await ctx.close();
    await dir.close();
  }
});

Deno.test("did:plc is listed in /1.0/methods; a configured did:plc is an example that resolves", async () => {
  const dir = plcDirectory({ logs: { [DID]: LOG } });
  const ctx = await createTestContext({
    env: { DID_PLC_DIRECTORY_URL: dir.url, DID_TEST_IDENTIFIERS: DID },
  });
  try {
    const token = await ctx.token();
    const methods = await (await ctx.call("GET", "/1.0/methods", { token })).json();
    assert.ok(methods.includes("plc"), JSON.stringify(methods));
    const examples = await (await ctx.call("GET", "/1.0/testIdentifiers", { token })).json();
    assert.deepEqual(examples.plc, [DID]);
    const r = await ctx.call("GET", `/1.0/identifiers/${DID}`, { token });
    assert.equal(r.status, 200);
    assert.equal((await r.json()).didDocument.id, DID);
  } finally {
    await ctx.close();
    await dir.close();
  }
  // Unconfigured, no did:plc example (it would need the network).
  const plain = await createTestContext();
  try {
    const examples = await (await plain.call("GET", "/1.0/testIdentifiers", {
      token: await plain.token(),
    })).json();
    assert.equal(examples.plc, undefined);
  } finally {
    await plain.close();
  }
});

Deno.test("did:plc's verifier, DAG-CBOR and multiformats are loaded on first use, not at start", async () => {
  const info = await denoInfo(ROOT, "src/compose.ts");
  // Every module the composition (which builds the resolver at start) reaches through static
  // imports only.
  const seen = staticReach(info.modules, [new URL("src/compose.ts", ROOT).href]);
  const plcMethod = new URL("src/did/methods/plc.ts", ROOT).href;
  assert.ok(seen.has(plcMethod), "the method itself is registered at start");
  const loadedAtStart = [...seen].filter((s) =>
    s.includes("/did/methods/plc/") || s.includes("dag-cbor") || s.includes("multiformats")
  );
  assert.deepEqual(loadedAtStart, []);
  assert.ok(
    info.modules.some((m) => m.specifier === new URL("src/did/methods/plc/mod.ts", ROOT).href),
  );
});

Deno.test("did:plc DID URLs: #atproto is the signing key, ?service=atproto_pds leads to the PDS", async () => {
  const dir = plcDirectory({ logs: { [DID]: LOG } });
  const { ctx, token } = await plcContext(dir.url);
  try {
    const key = await ctx.call("GET", `/dids/${DID}%23atproto`, { token });
    assert.equal(key.status, 200);
    const vm = await key.json();
    assert.equal(vm.id, `${DID}#atproto`);
    assert.equal(vm.type, "Multikey");
    assert.equal(
      `did:key:${vm.publicKeyMultibase}`,
      LOG.at(-1).operation.verificationMethods.atproto,
    );
    const pds = await ctx.call(
      "GET",
      `/1.0/identifiers/${DID}?service=atproto_pds&relativeRef=/xrpc/_health`,
      { token },
    );
    assert.equal(pds.status, 303);
    assert.equal(
      pds.headers.get("location"),
      `${LOG.at(-1).operation.services.atproto_pds.endpoint}/xrpc/_health`,
    );
  } finally {
    await ctx.close();
    await dir.close();
  }
});
