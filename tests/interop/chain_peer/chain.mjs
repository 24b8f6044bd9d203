// The chain peer of tests/did/chain_test.ts, run with Node.js against a local anvil node that the
// test started:
//
//   node chain.mjs setup <rpcUrl>
//     deploys the did:ethr registry (ERC-1056, bytecode from ethr-did-resolver) and the did:polygon
//     registry (@ayanworks/polygon-did-registry-contract), writes the test's DIDs and prints one
//     JSON line: registries, chain id, DIDs, and the blocks and times of the versioned DID.
//   node chain.mjs touch <rpcUrl> <ethrRegistry> <address>
//     adds a service to the did:ethr DID of <address> (an unlocked anvil account).
//   node chain.mjs resolve <configJson> <requestsJson>
//     resolves each {didUrl, accept} with the drivers themselves (did-resolver's Resolver over
//     ethr-did-resolver, @ayanworks/polygon-did-resolver configured through its exported
//     networkConfig, and pkh-did-resolver) and prints {answers: [{didUrl, accept, result} | {…, thrown}]}.
//   node chain.mjs blockAt <rpcUrl> <unixSeconds>
//     the last block at or before that time, found by reading every block (the test's own answer
//     to compare the service's search with).
import { createRequire } from "node:module";
import { Contract, ContractFactory, encodeBytes32String, hexlify, JsonRpcProvider, toUtf8Bytes, Wallet } from "ethers";
import { Resolver } from "did-resolver";
import { EthereumDIDRegistry, getResolver as ethrResolver } from "ethr-did-resolver";
import { getResolver as pkhResolver } from "pkh-did-resolver";

const require = createRequire(import.meta.url);
const polygon = require("@ayanworks/polygon-did-resolver");
const polygonConfig = require("@ayanworks/polygon-did-resolver/build/config.js");
const polygonArtifact = require("@ayanworks/polygon-did-registry-contract").default;

const DAY = 86400;

function provider(rpcUrl) {
  // No request cache: a resolution right after a write must see the write.
  return new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, polling: false });
}

/** Sends a transaction and waits for its block; returns the block number and time. */
async function mined(txPromise, p) {
  const tx = await txPromise;
  const receipt = await tx.wait();
  const block = await p.getBlock(receipt.blockNumber);
  return { block: receipt.blockNumber, time: block.timestamp };
}

/** Mines the next transaction at `seconds` (anvil), so that versions have distinct times. */
async function nextBlockAt(p, seconds) {
  await p.send("evm_setNextBlockTimestamp", [seconds]);
}

async function setup(rpcUrl) {
  const p = provider(rpcUrl);
  const { chainId } = await p.getNetwork();
  const accounts = await p.send("eth_accounts", []);
  const signer = (i) => p.getSigner(accounts[i]);
  const deployer = await signer(0);

  const ethrFactory = new ContractFactory(EthereumDIDRegistry.abi, EthereumDIDRegistry.bytecode, deployer);
  const ethr = await ethrFactory.deploy();
  await ethr.waitForDeployment();
  const ethrRegistry = await ethr.getAddress();
  const polyFactory = new ContractFactory(polygonArtifact.abi, polygonArtifact.evm.bytecode.object, deployer);
  const poly = await polyFactory.deploy();
  await poly.waitForDeployment();
  const polygonRegistry = await poly.getAddress();
  await mined(poly.initialize(), p);

  const as = async (i, contract) => contract.connect(await signer(i));
  const net = "dev";
  const ethrDid = (a) => `did:ethr:${net}:${a}`;

  // Unchanged: a public-key DID (its controller key is in the document) and a plain address.
  const unchangedKey = Wallet.createRandom().signingKey.compressedPublicKey;
  const unchangedAddress = Wallet.createRandom().address;

  // A service and an extra key.
  const withService = accounts[1];
  const e1 = await as(1, ethr);
  await mined(
    e1.setAttribute(
      withService,
      encodeBytes32String("did/svc/DIDCommMessaging"),
      toUtf8Bytes(JSON.stringify({ uri: "https://agent.example/didcomm", accept: ["didcomm/v2"] })),
      DAY,
    ),
    p,
  );
  await mined(
    e1.setAttribute(
      withService,
      encodeBytes32String("did/pub/Ed25519/veriKey/base58"),
      hexlify(Wallet.createRandom().signingKey.publicKey).slice(0, 66),
      DAY,
    ),
    p,
  );

  // A delegate.
  const withDelegate = accounts[2];
  const delegate = Wallet.createRandom().address;
  await mined((await as(2, ethr)).addDelegate(withDelegate, encodeBytes32String("sigAuth"), delegate, DAY), p);

  // A new owner.
  const newOwnerOf = accounts[3];
  const newOwner = Wallet.createRandom().address;
  await mined((await as(3, ethr)).changeOwner(newOwnerOf, newOwner), p);

  // Deactivated: the owner becomes the null address.
  const deactivated = accounts[4];
  await mined((await as(4, ethr)).changeOwner(deactivated, "0x0000000000000000000000000000000000000000"), p);

  // Changed twice, each change at a time of its own.
  const twice = accounts[5];
  const e5 = await as(5, ethr);
  const start = (await p.getBlock("latest")).timestamp;
  await nextBlockAt(p, start + 1000);
  const first = await mined(
    e5.setAttribute(twice, encodeBytes32String("did/svc/LinkedDomains"), toUtf8Bytes("https://one.example"), DAY * 30),
    p,
  );
  await nextBlockAt(p, start + 2000);
  const second = await mined(
    e5.setAttribute(twice, encodeBytes32String("did/svc/LinkedDomains"), toUtf8Bytes("https://two.example"), DAY * 30),
    p,
  );

  // did:polygon (testnet): a registered DID with a linked resource, a deactivated one, one never written.
  const polyDid = (a) => `did:polygon:testnet:${a}`;
  const polyDoc = (a, withKey) => ({
    "@context": ["https://w3id.org/did/v1", "https://w3id.org/security/suites/secp256k1-2019/v1"],
    id: polyDid(a),
    ...(withKey
      ? {
        verificationMethod: [{
          id: `${polyDid(a)}#key-1`,
          type: "EcdsaSecp256k1VerificationKey2019",
          controller: polyDid(a),
          publicKeyBase58: "7Lnm1ZnseKDkH1baAb1opREfAU4MPY7zCdUDSrWSm9NxNTQmy4neU9brFUYnEcyy7CVA4pZRmYfGhhS8G5hCJHaH",
        }],
        authentication: [`${polyDid(a)}#key-1`],
        assertionMethod: [`${polyDid(a)}#key-1`],
      }
      : {}),
  });
  // The registry writes block.timestamp over the DID's `updated`: an SSTORE that costs more when the
  // value changes, so a gas estimate made within the previous block's second can fall short when
  // the transaction is mined a second later (out of gas: a revert). A fixed gas limit avoids it.
  const GAS = { gasLimit: 2_000_000 };
  const registered = accounts[6];
  const p6 = await as(6, poly);
  await mined(p6.createDID(registered, JSON.stringify(polyDoc(registered, true)), GAS), p);
  await mined(
    p6.addResource(registered, "schema-1", JSON.stringify({ resourceURI: `${polyDid(registered)}/resources/schema-1`, name: "schema" }), GAS),
    p,
  );
  const polyDeactivated = accounts[7];
  const p7 = await as(7, poly);
  await mined(p7.createDID(polyDeactivated, JSON.stringify(polyDoc(polyDeactivated, true)), GAS), p);
  await mined(p7.updateDIDDoc(polyDeactivated, JSON.stringify(polyDoc(polyDeactivated, false)), GAS), p);
  const unregistered = Wallet.createRandom().address;

  const out = {
    chainId: Number(chainId),
    ethrRegistry,
    polygonRegistry,
    ethr: {
      unchangedKey: ethrDid(unchangedKey),
      unchanged: ethrDid(unchangedAddress),
      chainIdForm: `did:ethr:0x${chainId.toString(16)}:${withService}`,
      withService: ethrDid(withService),
      withDelegate: ethrDid(withDelegate),
      newOwner: ethrDid(newOwnerOf),
      deactivated: ethrDid(deactivated),
      twice: ethrDid(twice),
      touchable: ethrDid(accounts[8]),
    },
    touchableAddress: accounts[8],
    versions: { first, second },
    polygon: {
      registered: polyDid(registered),
      deactivated: polyDid(polyDeactivated),
      unregistered: polyDid(unregistered),
    },
  };
  p.destroy();
  return out;
}

async function touch(rpcUrl, registry, address) {
  const p = provider(rpcUrl);
  const ethr = new Contract(registry, EthereumDIDRegistry.abi, await p.getSigner(address));
  const at = await mined(
    ethr.setAttribute(address, encodeBytes32String("did/svc/LinkedDomains"), toUtf8Bytes("https://touched.example"), DAY),
    p,
  );
  p.destroy();
  return at;
}

async function resolve(config, requests) {
  const drivers = { ...pkhResolver() };
  if (config.ethr) Object.assign(drivers, ethrResolver({ networks: config.ethr }));
  if (config.polygon) {
    for (const [name, n] of Object.entries(config.polygon)) {
      polygonConfig.networkConfig[name] = { URL: n.rpcUrl, CONTRACT_ADDRESS: n.registry };
    }
    Object.assign(drivers, polygon.getResolver());
  }
  const resolver = new Resolver(drivers);
  const out = [];
  for (const { didUrl, accept } of requests) {
    try {
      const result = await resolver.resolve(didUrl, accept ? { accept } : {});
      out.push({ didUrl, accept, result: JSON.parse(JSON.stringify(result)) });
    } catch (err) {
      out.push({ didUrl, accept, thrown: String(err?.message ?? err) });
    }
  }
  return { answers: out };
}

async function blockAt(rpcUrl, seconds) {
  const p = provider(rpcUrl);
  const latest = await p.getBlockNumber();
  let found = null;
  for (let n = 0; n <= latest; n++) {
    const b = await p.getBlock(n);
    if (b.timestamp <= seconds) found = n;
  }
  p.destroy();
  return { block: found };
}

const [command, ...args] = process.argv.slice(2);
const commands = {
  setup: () => setup(args[0]),
  touch: () => touch(args[0], args[1], args[2]),
  resolve: () => resolve(JSON.parse(args[0]), JSON.parse(args[1])),
  blockAt: () => blockAt(args[0], Number(args[1])),
};
if (!commands[command]) {
  console.error(`usage: node chain.mjs setup|touch|resolve|blockAt …`);
  process.exit(2);
}
const result = await commands[command]();
process.stdout.write(JSON.stringify(result) + "\n");
process.exit(0);
