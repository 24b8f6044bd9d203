// Builds a real Credo 0.6.3 agent with the openid4vc module, in-memory storage and the
// node:crypto KMS from @credo-ts/node (Ed25519 + P-256, no native code).
import * as core from "@credo-ts/core";
import { Agent, ConsoleLogger, Kms, LogLevel } from "@credo-ts/core";
import {
  agentDependencies,
  NodeInMemoryKeyManagementStorage,
  NodeKeyManagementService,
} from "@credo-ts/node";
import { OpenId4VcModule } from "@credo-ts/openid4vc";
import { mapStorage } from "../../peer_lib/map_storage.mjs";

const { MapStorageModule } = mapStorage(core);

/**
 * @param {{ app?: import("express").Express, issuer?: object, verifier?: object, logLevel?: string,
 *   fetch?: typeof fetch }} options
 *   `issuer`: OpenId4VcIssuerModuleConfigOptions without `app` (omit for a holder-only agent).
 *   `verifier`: OpenId4VcVerifierModuleConfigOptions without `app` (an OpenID4VP verifier).
 *   `fetch`: replaces the agent's fetch (e.g. {@link loopbackOnlyFetch}).
 */
export async function createOid4vcAgent(options = {}) {
  const level = LogLevel[options.logLevel ?? process.env.CREDO_LOG ?? "warn"] ?? LogLevel.warn;
  const agent = new Agent({
    config: { logger: new ConsoleLogger(level), allowInsecureHttpUrls: true },
    dependencies: options.fetch
      ? { ...agentDependencies, fetch: options.fetch }
      : agentDependencies,
    modules: {
      storage: new MapStorageModule(),
      kms: new Kms.KeyManagementModule({
        backends: [new NodeKeyManagementService(new NodeInMemoryKeyManagementStorage())],
      }),
      openid4vc: new OpenId4VcModule({
        ...(options.issuer || options.verifier ? { app: options.app } : {}),
        ...(options.issuer ? { issuer: options.issuer } : {}),
        ...(options.verifier ? { verifier: options.verifier } : {}),
      }),
    },
  });
  await agent.initialize();
  return agent;
}

/**
 * fetch that only reaches 127.0.0.1/localhost and answers 404 for anything else, so
 * that e.g. Credo's SD-JWT VC type metadata lookup of `https://example.org/vct/...`
 * never waits on the network.
 */
export function loopbackOnlyFetch(input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) return fetch(input, init);
  return Promise.resolve(new Response("not reachable from the test peer", { status: 404 }));
}

/** POSTs `body` to a peer's control API (`base` + `path`); its JSON answer, or throws. */
export async function controlPost(base, path, body) {
  const res = await fetch(new URL(path, base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
