#!/usr/bin/env node
// Self-test of the Credo issuer peer, independent of our Deno service: spawns
// issuer.mjs as a subprocess and drives it through its control API while a second,
// in-process Credo agent plays the holder.
// Usage: node selftest.mjs [--write-fixtures PATH]
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PeerDidNumAlgo } from "@credo-ts/core";
import { DidCommConnectionsModuleConfig, DidCommCredentialState } from "@credo-ts/didcomm";
import { createCredoAgent } from "./lib/credo_agent.mjs";
import { buildFixtures } from "./lib/fixtures.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: { "write-fixtures": { type: "string" } },
});
const results = { passed: 0, failed: 0 };
const timings = {};

function check(name, ok, detail = "") {
  results[ok ? "passed" : "failed"]++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ` (${detail})` : ""}`);
}

async function waitFor(what, fn, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function startIssuer() {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(here, "issuer.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.once(
      "exit",
      (code) => reject(new Error(`issuer exited early with ${code}`)),
    );
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      const line = buffer.split("\n").find((l) => l.startsWith("READY "));
      if (line) {
        resolve({
          child,
          ready: JSON.parse(line.slice(6)),
          wallMs: Math.round(performance.now() - t0),
        });
      }
    });
  });
}

const { child, ready, wallMs } = await startIssuer();
timings.issuerSpawnToReadyMs = wallMs;
timings.issuerReportedStartupMs = ready.startupMs;
timings.issuerRssMbAtReady = ready.rssMb;
const base = `http://127.0.0.1:${ready.controlPort}`;
async function api(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) {
    throw new Error(
      `${method} ${path} -> ${res.status} ${JSON.stringify(json)}`,
    );
  }
  return json;
}

const holder = await createCredoAgent();
const flows = {};
let exitCode = 0;
try {
  const connections = {};
  const handshakes = [
    ["didexchange_peer4", "didexchange", PeerDidNumAlgo.ShortFormAndLongForm],
    ["didexchange_peer2", "didexchange", PeerDidNumAlgo.MultipleInceptionKeyWithoutDoc],
    ["didexchange_peer1", "didexchange", PeerDidNumAlgo.GenesisDoc],
    ["connections", "connections", undefined],
  ];
  const connectionsConfig = holder.agent.dependencyManager.resolve(DidCommConnectionsModuleConfig);
  for (const [name, handshake, numAlgo] of handshakes) {
    if (numAlgo !== undefined) connectionsConfig.peerNumAlgoForDidExchangeRequests = numAlgo;
    const t0 = performance.now();
    const invitation = await api("POST", "/invitations", { handshake });
    const { connectionRecord } = await holder.agent.didcomm.oob
      .receiveInvitationFromUrl(invitation.invitationUrl, {
        label: "Credo Holder",
      });
    const holderConn = await waitFor(
      `${name} holder completed`,
      async () => {
        const c = await holder.agent.didcomm.connections.getById(
          connectionRecord.id,
        );
        return c.state === "completed" && c;
      },
    );
    const issuerConn = await waitFor(
      `${name} issuer completed`,
      async () =>
        (await api("GET", "/connections")).find((c) =>
          c.outOfBandId === invitation.outOfBandId && c.state === "completed"
        ),
    );
    timings[`${name}HandshakeMs`] = Math.round(performance.now() - t0);
    check(
      `${name}: both sides completed`,
      holderConn.state === "completed" && issuerConn.state === "completed",
      `protocol ${issuerConn.protocol}, issuer sees theirDid ${
        issuerConn.theirDid?.slice(0, 24)
      }...`,
    );
    check(
      `${name}: issuer sees holder label`,
      issuerConn.theirLabel === "Credo Holder",
    );
    connections[name] = { issuerConn, holderConn, invitation };
  }

  for (const [handshake, { issuerConn }] of Object.entries(connections)) {
    const before = (await api("GET", "/trust-pings")).length;
    const ping = await api("POST", `/connections/${issuerConn.id}/trust-ping`);
    const responses = await waitFor("trust ping response", async () => {
      const list = await api("GET", "/trust-pings");
      return list.length > before && list;
    });
    check(
      `${handshake}: trust ping answered by holder`,
      responses.at(-1).threadId === ping.threadId,
    );
  }

  const offers = [
    {
      name: "Ed25519Signature2018",
      body: { proofType: "Ed25519Signature2018" },
    },
    { name: "tampered proof", body: { tamper: "proof" } },
  ];
  const credentialOutcomes = {};
  for (const offer of offers) {
    const conn = connections.didexchange_peer2;
    const t0 = performance.now();
    const sent = await api("POST", "/credentials/offer", {
      connectionId: conn.issuerConn.id,
      ...offer.body,
    });
    const holderOffer = await waitFor(
      "holder offer-received",
      async () =>
        (await holder.agent.didcomm.credentials.getAll()).find(
          (r) =>
            r.threadId === sent.threadId &&
            r.state === DidCommCredentialState.OfferReceived,
        ),
    );
    await holder.agent.didcomm.credentials.acceptOffer({
      credentialExchangeRecordId: holderOffer.id,
    });
    if (offer.body.tamper === "proof") {
      const settled = await waitFor(
        "tampered credential to reach the holder",
        () =>
          holder.recorder.inbound.some((e) =>
            e.thid === sent.threadId && e.type.endsWith("/issue-credential")
          ),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const h = await holder.agent.didcomm.credentials.getById(holderOffer.id);
      const i = await api("GET", `/credentials/${sent.credentialExchangeId}`);
      check(
        "tampered proof: holder does not reach done",
        h.state !== DidCommCredentialState.Done,
        `holder ${h.state}: ${h.errorMessage ?? "no error"}; issuer ${i.state}; settled=${
          Boolean(settled)
        }`,
      );
      check(
        "tampered proof: holder stored no extra credential",
        (await holder.agent.w3cCredentials.getAll()).length === 1,
      );
      // A holder that rejects the credential reports it; Credo's issuer must record that.
      await holder.agent.didcomm.credentials.sendProblemReport({
        credentialExchangeRecordId: holderOffer.id,
        description: "credential proof does not verify",
      });
      const reports = await waitFor("problem report at issuer", async () => {
        const list = (await api("GET", "/problem-reports")).filter((p) =>
          p.threadId === sent.threadId
        );
        return list.length > 0 && list;
      });
      const abandoned = await waitFor("issuer exchange abandoned", async () => {
        const r = await api("GET", `/credentials/${sent.credentialExchangeId}`);
        return r.state === "abandoned" && r;
      });
      credentialOutcomes[offer.name] = {
        holderState: h.state,
        holderError: h.errorMessage ?? null,
        issuerStateBeforeProblemReport: i.state,
        issuerStateAfterProblemReport: abandoned.state,
        issuerErrorMessage: abandoned.errorMessage,
        problemReportsAtIssuer: reports.length,
      };
      check(
        "tampered proof: issuer logs the holder's problem report and abandons",
        reports[0].description === "credential proof does not verify" &&
          abandoned.errorMessage !== null,
        `${reports[0].type} code=${reports[0].code}; errorMessage=${abandoned.errorMessage}`,
      );
      continue;
    }
    const issuerDone = await waitFor("issuer done", async () => {
      const r = await api("GET", `/credentials/${sent.credentialExchangeId}`);
      return r.state === "done" && r;
    });
    const holderDone = await holder.agent.didcomm.credentials.getById(
      holderOffer.id,
    );
    timings[`credential${offer.name}Ms`] = Math.round(performance.now() - t0);
    credentialOutcomes[offer.name] = {
      issuerState: issuerDone.state,
      holderState: holderDone.state,
    };
    check(
      `${offer.name}: issuer done, holder done`,
      issuerDone.state === "done" && holderDone.state === "done",
    );
    const proofType = issuerDone.formatData.credential?.jsonld?.proof?.type;
    check(
      `${offer.name}: credential proof type`,
      proofType === offer.body.proofType,
      proofType,
    );
  }
  const stored = await holder.agent.w3cCredentials.getAll();
  check(
    "holder stored 1 verified W3C credential",
    stored.length === 1,
    `${stored.length}`,
  );
  const acks = (await api("GET", "/messages")).filter((m) =>
    m.type === "https://didcomm.org/issue-credential/2.0/ack"
  );
  check(
    "issuer received exactly 1 issue-credential ack",
    acks.length === 1,
    `${acks.length}`,
  );

  timings.issuerRssMbAtEnd = (await api("GET", "/health")).rssMb ?? null;
  if (args["write-fixtures"]) {
    const issuerIn = await api("GET", "/messages?full=1");
    const issuerOut = await api("GET", "/messages?direction=out&full=1");
    const fixtures = buildFixtures({
      issuerIn,
      issuerOut,
      connections,
      credentialOutcomes,
      timings,
    });
    writeFileSync(
      args["write-fixtures"],
      `${JSON.stringify(fixtures, null, 2)}\n`,
    );
    console.log(`wrote ${args["write-fixtures"]}`);
  }
} catch (error) {
  check(
    "selftest flow",
    false,
    error instanceof Error ? error.stack : String(error),
  );
} finally {
  await api("POST", "/shutdown").catch(() => child.kill());
  await holder.agent.shutdown();
  console.log(`timings ${JSON.stringify(timings)}`);
  console.log(`selftest: ${results.passed} passed, ${results.failed} failed`);
  if (results.failed > 0) exitCode = 1;
}
process.exit(exitCode);
