/** `DID_ETHR_NETWORKS`, `DID_POLYGON_NETWORKS`, `DID_DRIVER_TIMEOUT_MS` (CONTRACT "Environment"). */
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../src/config/config.ts";

const base = {
  AUTH_PUBLIC_KEY:
    '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}',
  AUTH_ISSUER: "https://idp.example/realms/x",
  AUTH_AUDIENCE: "ssi-edge",
  SECRETS_KEY: btoa("x".repeat(32)),
};
const REGISTRY = "0xdca7ef03e98e0dc2b855be647c39abe984fcf21b";
const SECRET_URL = "https://mainnet.infura.io/v3/SECRET-PROJECT-ID";

function refuses(env: Record<string, string>, pattern: RegExp) {
  assert.throws(() => parseConfig({ ...base, ...env }), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
    assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /SECRET-PROJECT-ID/, "an RPC URL may carry an API key");
    return true;
  });
}

Deno.test("the chain settings are unset by default: did:ethr and did:polygon not served; driver timeout 10 s", () => {
  const c = parseConfig(base);
  assert.equal(c.didEthrNetworks, undefined);
  assert.equal(c.didPolygonNetworks, undefined);
  assert.equal(c.didDriverTimeoutMs, 10_000);
  assert.equal(parseConfig({ ...base, DID_DRIVER_TIMEOUT_MS: "2500" }).didDriverTimeoutMs, 2500);
});

Deno.test("DID_ETHR_NETWORKS takes ethr-did-resolver's networks shape", () => {
  const networks = [
    { name: "mainnet", chainId: 1, rpcUrl: SECRET_URL, registry: REGISTRY },
    { name: "rsk:testnet", chainId: "0x1f", rpcUrl: "http://127.0.0.1:8545", legacyNonce: false },
  ];
  const c = parseConfig({ ...base, DID_ETHR_NETWORKS: JSON.stringify(networks) });
  assert.deepEqual(c.didEthrNetworks, networks);
});

Deno.test("DID_ETHR_NETWORKS refuses what ethr-did-resolver could not serve, naming the variable", () => {
  const ok = { name: "dev", chainId: 1337, rpcUrl: SECRET_URL };
  const bad = (n: unknown) => ({ DID_ETHR_NETWORKS: JSON.stringify(n) });
  refuses({ DID_ETHR_NETWORKS: "[{" }, /DID_ETHR_NETWORKS must be JSON/);
  refuses(bad({ networks: [ok] }), /DID_ETHR_NETWORKS must be a JSON array/);
  refuses(bad([]), /DID_ETHR_NETWORKS must be a JSON array/);
  refuses(bad([ok, "x"]), /DID_ETHR_NETWORKS: network 2 is not a JSON object/);
  refuses(bad([{ ...ok, chainId: undefined }]), /network 1 needs "chainId"/);
  refuses(bad([{ ...ok, chainId: -1 }]), /network 1 needs "chainId"/);
  refuses(bad([{ ...ok, rpcUrl: "ws://node" }]), /network 1 needs "rpcUrl"/);
  refuses(bad([{ ...ok, registry: "0x12" }]), /network 1 needs "registry"/);
  refuses(bad([{ ...ok, name: "a b" }]), /"name" that cannot be part of a DID/);
});

Deno.test("DID_POLYGON_NETWORKS takes testnet and mainnet, each with its RPC URL and registry", () => {
  const networks = { testnet: { rpcUrl: "http://127.0.0.1:8545", registry: REGISTRY } };
  const c = parseConfig({ ...base, DID_POLYGON_NETWORKS: JSON.stringify(networks) });
  assert.deepEqual(c.didPolygonNetworks, networks);
  const bad = (n: unknown) => ({ DID_POLYGON_NETWORKS: JSON.stringify(n) });
  refuses(bad([networks.testnet]), /DID_POLYGON_NETWORKS must be a JSON object/);
  refuses(bad({ amoy: networks.testnet }), /"amoy" is not a did:polygon network/);
  refuses(bad({ mainnet: { rpcUrl: SECRET_URL } }), /network "mainnet" needs "registry"/);
  refuses(bad({ mainnet: { registry: REGISTRY } }), /network "mainnet" needs "rpcUrl"/);
  refuses({ DID_DRIVER_TIMEOUT_MS: "0" }, /DID_DRIVER_TIMEOUT_MS/);
});
