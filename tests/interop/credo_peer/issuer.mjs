#!/usr/bin/env node
// Real Credo DIDComm v1 ISSUER and VERIFIER for interop tests, driven through a JSON control API.
// Usage: node issuer.mjs [--didcomm-port N] [--control-port N]   (0 / absent = free port)
// Prints exactly one stdout line when ready: READY {"didcommPort":..,"controlPort":..,...}
// Everything else (Credo logs, errors) goes to stderr. All sockets bind 127.0.0.1.
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { RecordNotFoundError } from "@credo-ts/core";
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

let server;
let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  server?.close();
  await agent.shutdown().catch((error) => console.error("shutdown error", error));
  process.exit(0);
}

const handle = createControlApi({
  agent,
  recorder,
  issuerDid,
  endpoint,
  inboundSwitch,
  shutdown,
});

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  return text.trim() === "" ? {} : JSON.parse(text);
}

server = createServer(async (req, res) => {
  let status = 500;
  let body;
  try {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const result = await handle(
      req.method ?? "GET",
      url.pathname,
      await readJson(req),
      url.searchParams,
    );
    status = result.status;
    body = result.body;
  } catch (error) {
    status = error instanceof RecordNotFoundError ? 404 : error instanceof SyntaxError ? 400 : 500;
    body = { error: error instanceof Error ? error.message : String(error) };
    if (status === 500) console.error("control API error", error);
  }
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
});
server.listen(Number(values["control-port"]), "127.0.0.1", () => {
  const ready = {
    didcommPort,
    controlPort: server.address().port,
    endpoint,
    issuerDid,
    startupMs: Math.round(performance.now()), // since process start, imports included
    rssMb: Math.round(process.memoryUsage().rss / 1048576),
  };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
});

process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
