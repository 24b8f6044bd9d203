// Builds a real Credo 0.6.3 agent (DIDComm v1 over HTTP on 127.0.0.1) with in-memory storage, a
// libsodium-extended Node KMS and a message recorder: an issuer (Issue Credential 2.0, JSON-LD) and
// a verifier (Present Proof 2.0, DIF Presentation Exchange) on the same connections.
import * as core from "@credo-ts/core";
import { Agent, ConsoleLogger, Kms, LogLevel, W3cCredentialsModule } from "@credo-ts/core";
import {
  DidCommAutoAcceptCredential,
  DidCommAutoAcceptProof,
  DidCommCredentialV2Protocol,
  DidCommDifPresentationExchangeProofFormatService,
  DidCommEnvelopeService,
  DidCommHttpOutboundTransport,
  DidCommJsonLdCredentialFormatService,
  DidCommModule,
  DidCommProofV2Protocol,
} from "@credo-ts/didcomm";
import { agentDependencies, DidCommHttpInboundTransport } from "@credo-ts/node";
import express from "express";
import { mapStorage } from "../../peer_lib/map_storage.mjs";
import { documentLoaderWithStatus } from "./document_loader.mjs";
import { installRecorder } from "./recorder.mjs";
import { SodiumWrappedKms } from "./sodium_kms.mjs";

const { MapStorageModule } = mapStorage(core);

/**
 * Express app whose listen() always binds 127.0.0.1 (Credo's default is all interfaces). While
 * `inbound.paused` is true every inbound DIDComm request is answered 503 before Credo sees it (a
 * peer that is down, for tests of at-least-once delivery).
 */
function loopbackApp(inbound) {
  const app = express();
  app.use((_req, res, next) => {
    if (inbound.paused) res.status(503).end();
    else next();
  });
  const listen = app.listen.bind(app);
  app.listen = (port, ...rest) =>
    listen(
      port,
      "127.0.0.1",
      ...rest.filter((arg) => typeof arg === "function"),
    );
  return app;
}

/**
 * Creates and initializes a Credo agent.
 * @param {{label?: string, port?: number, autoAcceptCredentials?: string,
 *   autoAcceptProofs?: string, logLevel?: string}} options
 *   port 0 (default) picks a free port; the endpoint is then http://127.0.0.1:<port>.
 */
export async function createCredoAgent(options = {}) {
  const port = options.port ?? 0;
  const inboundSwitch = { paused: false };
  const inbound = new DidCommHttpInboundTransport({ app: loopbackApp(inboundSwitch), port });
  const level = LogLevel[options.logLevel ?? process.env.CREDO_LOG ?? "warn"] ??
    LogLevel.warn;
  const agent = new Agent({
    config: { logger: new ConsoleLogger(level), allowInsecureHttpUrls: true },
    dependencies: agentDependencies,
    modules: {
      storage: new MapStorageModule(),
      kms: new Kms.KeyManagementModule({ backends: [new SodiumWrappedKms()] }),
      w3cCredentials: new W3cCredentialsModule({ documentLoader: documentLoaderWithStatus }),
      didcomm: new DidCommModule({
        endpoints: [`http://127.0.0.1:${port}`],
        transports: {
          inbound: [inbound],
          outbound: [new DidCommHttpOutboundTransport()],
        },
        connections: { autoAcceptConnections: true },
        credentials: {
          autoAcceptCredentials: options.autoAcceptCredentials ??
            DidCommAutoAcceptCredential.ContentApproved,
          credentialProtocols: [
            new DidCommCredentialV2Protocol({
              credentialFormats: [new DidCommJsonLdCredentialFormatService()],
            }),
          ],
        },
        proofs: {
          // Verifies every presentation itself and acks it when it verifies.
          autoAcceptProofs: options.autoAcceptProofs ?? DidCommAutoAcceptProof.ContentApproved,
          proofProtocols: [
            new DidCommProofV2Protocol({
              proofFormats: [new DidCommDifPresentationExchangeProofFormatService()],
            }),
          ],
        },
        messagePickup: false,
        mediator: false,
        mediationRecipient: false,
        basicMessages: false,
      }),
    },
  });
  const recorder = installRecorder(
    agent.dependencyManager.resolve(DidCommEnvelopeService),
  );
  await agent.initialize();
  const server = inbound.server;
  if (server && !server.listening) {
    await new Promise((resolve) => server.once("listening", resolve));
  }
  const actualPort = server.address().port;
  const endpoint = `http://127.0.0.1:${actualPort}`;
  agent.didcomm.config.endpoints = [endpoint];
  return { agent, recorder, port: actualPort, endpoint, inboundSwitch };
}
