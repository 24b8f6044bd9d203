#!/usr/bin/env node
// Real Credo DIDComm v1 ISSUER and VERIFIER for interop tests, driven through a JSON control API.
// Usage: node issuer.mjs [--didcomm-port N] [--control-port N]   (0 / absent = free port)
// Prints exactly one stdout line when ready: READY {"didcommPort":..,"controlPort":..,...}
// Everything else (Credo logs, errors) goes to stderr. All sockets bind 127.0.0.1.
import { parseArgs } from "node:util";
import { RecordNotFoundError } from "@credo-ts/core";
import { servePeer } from "../peer_lib/control_server.mjs";
import { createControlApi } from "./lib/control_api.mjs";
import { createCredoAgent } from "./lib/credo_agent.mjs";

const { values } = parseArgs({
  options: {
    "didcomm-port": {
      type: "string",
      default: process.env.CREDO_DIDCOMM_PORT ?? "0",
    },
    "control-port": {
      type: "string",
      default: process.env.CREDO_CONTROL_PORT ?? "0",
    },
  },
});

const { agent, recorder, port: didcommPort, endpoint, inboundSwitch } = await createCredoAgent(
  {
    port: Number(values["didcomm-port"]),
  },
);
const { didState } = await agent.dids.create({
  method: "key",
  options: { createKey: { type: { kty: "OKP", crv: "Ed25519" } } },
});
if (didState.state !== "finished") {
  throw new Error(`did:key creation failed: ${JSON.stringify(didState)}`);
}
const issuerDid = didState.did;

const handle = createControlApi({
  agent,
  recorder,
  issuerDid,
  endpoint,
  inboundSwitch,
  shutdown: () => shutdown(),
});

const shutdown = servePeer({
  port: Number(values["control-port"]),
  handle,
  isNotFound: (error) => error instanceof RecordNotFoundError,
  ready: (server) => ({ didcommPort, controlPort: server.address().port, endpoint, issuerDid }),
  close: () => agent.shutdown().catch((error) => console.error("shutdown error", error)),
});
