/**
 * The composition: `buildServices` makes every long-lived object of the service exactly once
 * (resolver, token verifier, service signer, API key index, wallet, agents, webhooks, DIDComm with
 * its handler registry, the stored credentials, the protocols, the dispatcher) and hands each to
 * the objects that use it as an argument. Then it wires what arrives to what handles it, in one
 * list each: received DIDComm message types to their handlers, outbox kinds to theirs. It holds
 * no feature rule. `main.ts`, the tasks and every test build through this one function; tests
 * pass overrides (clock, outbound client, KV, dispatcher timing, a fake DIDComm layer).
 *
 * @module
 */
import {
  AgentDirectory,
  AgentService,
  ApiKeyIndex,
  loadServiceSigner,
  p256KeyResealable,
  pepperResealable,
  type ServiceSigner,
  signingKeyResealable,
  Wallet,
  walletKeyResealable,
} from "./agents/mod.ts";
import { type Config, ConfigError } from "./config/mod.ts";
import {
  ContextStore,
  CredentialStore,
  ldVerifier,
  type PresentationCheck,
  resolveDidWith,
} from "./credentials/mod.ts";
import { type Resealable, SecretBox } from "./crypto/mod.ts";
import { createDidResolver, type DidResolver, type DidResolverOptions } from "./did/mod.ts";
import {
  DidcommService,
  type ExchangeDidcomm,
  handshakeHandlers,
  type MessageHandlerTable,
  observingHandlers,
  queueDidRotation,
  rotatingHandlers,
  trustPingHandlers,
} from "./didcomm/mod.ts";
import { type TokenVerifier, userTokenVerifier } from "./http/mod.ts";
import {
  AUTO_ACCEPT_KIND,
  autoAcceptHandler,
  CredentialHolder,
  holderHandlers,
} from "./issue_credential/mod.ts";
import { withBusyRetry } from "./kv/mod.ts";
import { DEFERRED_KIND, deferredHandler, offerResealable, Oid4vcHolder } from "./openid4vci/mod.ts";
import { Oid4vpHolder, trustAnchorsFrom } from "./openid4vp/mod.ts";
import { createSafeFetch, type HostLookup, type SafeFetch } from "./outbound/mod.ts";
import { Dispatcher, type DispatcherOptions, type OutboxHandler } from "./outbox/mod.ts";
import {
  PROOF_AUTO_ACCEPT_KIND,
  proofAutoAcceptHandler,
  ProofProver,
  proverHandlers,
} from "./present_proof/mod.ts";
import { StatusChecker, StatusService } from "./status/mod.ts";
import {
  createWebhookHandler,
  WEBHOOK_KIND,
  type WebhookHandlerOptions,
  webhookSecretsResealable,
  WebhookService,
} from "./webhooks/mod.ts";

/** Every long-lived object of the service, made once by {@link buildServices}. */
export interface Services {
  config: Config;
  kv: Deno.Kv;
  /** Clock in ms since epoch. */
  now: () => number;
  secrets: SecretBox;
  safeFetch: SafeFetch;
  verifier: TokenVerifier;
  dispatcher: Dispatcher;
  resolver: DidResolver;
  signer: ServiceSigner;
  wallet: Wallet;
  agents: AgentService;
  webhooks: WebhookService;
  didcomm: DidcommService;
  holder: CredentialHolder;
  openid4vc: Oid4vcHolder;
  openid4vp: Oid4vpHolder;
  /** Credential status: checks, the kept statuses, the recheck cron's body. */
  status: StatusService;
  /** The org's stored credentials, whatever brought them. */
  credentials: CredentialStore;
  prover: ProofProver;
}

/** What a caller (a test, a benchmark) may put in place of the defaults. */
export interface BuildOptions {
  /** Clock; default `Date.now`. */
  now?: () => number;
  /**
   * DNS resolution of the outbound client and of the checks of agent endpoints and webhook URLs
   * (tests of the address policy).
   */
  resolveHost?: HostLookup;
  /** The outbound client itself. */
  safeFetch?: SafeFetch;
  /** Dispatcher tuning (poll interval, concurrency, lease). */
  dispatcher?: Omit<DispatcherOptions, "now">;
  /** Resolver tuning (timeouts, cache sizes, extra methods). */
  didResolver?: DidResolverOptions;
  /** Webhook delivery tuning (shorter schedules and timeouts in tests). */
  webhookDelivery?: WebhookHandlerOptions;
  /** The identity provider's JWKS fetch timeout (ms); default 5000. */
  jwksTimeoutMs?: number;
  /** The DIDComm layer the two DIDComm protocols queue their messages with (a fake in tests). */
  holderDidcomm?: ExchangeDidcomm;
  /** The status check of stored credentials before a presentation (tests of revoked ones). */
  credentialStatus?: PresentationCheck;
}

/** Builds every service from the configuration and the open KV database, then wires them. */
export async function buildServices(
  config: Config,
  database: Deno.Kv,
  options: BuildOptions = {},
): Promise<Services> {
  if (!config.secretsKey) throw new ConfigError("SECRETS_KEY is required.");
  // Several processes may share the database: every call survives a busy SQLite file.
  const kv = withBusyRetry(database);
  const now = options.now ?? Date.now;
  const { outbound } = config;
  const { resolveHost } = options;
  const secrets = new SecretBox(config.secretsKey, config.previousSecretsKeys);
  const safeFetch = options.safeFetch ?? createSafeFetch(outbound, { resolveHost });
  const verifier = userTokenVerifier(config.auth, { now, jwksTimeoutMs: options.jwksTimeoutMs });
  const dispatcher = new Dispatcher(kv, {
    leaseMs: config.outboxLeaseSeconds * 1000,
    // An outbox message's `leaseOwner` names the process that holds it.
    owner: `pid-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`,
    ...options.dispatcher,
    now,
  });
  // Hosts the operator configured (the DID plug-ins' chain RPC URLs, the PLC directory, the
  // universal resolver): the same client, without the private-address policy (CONTRACT "DID
  // method plug-ins").
  const operatorFetch = createSafeFetch({ allowPrivate: true, requireHttps: false }, {
    resolveHost,
  });
  const resolver = createDidResolver(
    { config, kv, safeFetch, operatorFetch, now },
    options.didResolver,
  );
  const signer = await loadServiceSigner({ kv, secrets, config, verifier, now });
  const wallet = new Wallet(kv, secrets);
  const apiKeys = new ApiKeyIndex({ kv, secrets, secretsKey: config.secretsKey, now });

  const directory = new AgentDirectory(kv);
  const didcommDeps = {
    kv,
    wallet,
    agents: directory,
    resolver,
    dispatcher,
    safeFetch,
    now,
    inboundPerMinute: config.didcommRateLimit,
  };
  const didcomm = new DidcommService(didcommDeps);
  // Agents change DIDComm state: a new endpoint rotates the org's connection DIDs, and an agent
  // with connections is not removed without force. DIDComm lends both as arguments.
  const agents = new AgentService({
    kv,
    wallet,
    apiKeys,
    signer,
    dispatcher,
    now,
    outbound,
    resolveHost,
    onEndpointChange: queueDidRotation,
    connections: didcomm,
  });
  const webhooks = new WebhookService({ kv, secrets, outbound, resolveHost, dispatcher, now });

  const contexts = new ContextStore({ kv, safeFetch, allow: config.jsonldContextAllow, now });
  const resolveDid = resolveDidWith(resolver);
  const status = new StatusService({
    kv,
    dispatcher,
    now,
    recheckSeconds: config.credentialStatusRecheckSeconds,
    checker: new StatusChecker({
      kv,
      safeFetch,
      resolver,
      now,
      defaultTtlMs: config.didCacheTtlSeconds * 1000,
      verifyLd: ldVerifier({ resolveDid, contexts, now }),
    }),
  });
  const credentials = new CredentialStore({
    kv,
    status,
    presentationCheck: options.credentialStatus,
  });

  const exchangeDidcomm = options.holderDidcomm ?? didcomm;
  const holder = new CredentialHolder({
    kv,
    dispatcher,
    now,
    agents: directory,
    didcomm: exchangeDidcomm,
    resolveDid,
    contexts,
    status,
    credentials,
  });
  const prover = new ProofProver({
    kv,
    dispatcher,
    now,
    agents: directory,
    wallet,
    didcomm: exchangeDidcomm,
    credentials,
    contexts,
  });
  const openid4vcDeps = {
    kv,
    secrets,
    safeFetch,
    resolver,
    dispatcher,
    status,
    credentials,
    contexts,
    now,
  };
  const openid4vc = new Oid4vcHolder({ ...openid4vcDeps, wallet });
  const openid4vp = new Oid4vpHolder({
    kv,
    wallet,
    resolver,
    safeFetch,
    dispatcher,
    now,
    credentials,
    contexts,
    outbound,
    resolveHost,
    anchors: await trustAnchorsFrom(config.oid4vpX509TrustAnchors),
  });

  // Received DIDComm messages, by type: the layer's own and each protocol's.
  const messageHandlers: MessageHandlerTable = {
    ...handshakeHandlers(didcommDeps),
    ...rotatingHandlers(),
    ...observingHandlers(resolver),
    ...trustPingHandlers(),
    ...holderHandlers(holder),
    ...proverHandlers(prover),
  };
  didcomm.handlers.registerAll(messageHandlers);

  // Outbox messages, by kind.
  const outboxHandlers: Record<string, OutboxHandler<never>> = {
    ...didcomm.outboxHandlers(),
    [WEBHOOK_KIND]: createWebhookHandler({ kv, secrets, safeFetch, now }, options.webhookDelivery),
    [AUTO_ACCEPT_KIND]: autoAcceptHandler(holder),
    [PROOF_AUTO_ACCEPT_KIND]: proofAutoAcceptHandler(prover),
    [DEFERRED_KIND]: deferredHandler(openid4vcDeps),
  };
  for (const [kind, handler] of Object.entries(outboxHandlers)) {
    dispatcher.register(kind, handler);
  }

  return {
    config,
    kv,
    now,
    secrets,
    safeFetch,
    verifier,
    dispatcher,
    resolver,
    signer,
    wallet,
    agents,
    webhooks,
    didcomm,
    holder,
    openid4vc,
    openid4vp,
    status,
    credentials,
    prover,
  };
}

/** Every kind of value sealed with SECRETS_KEY, for a key rotation (`rotateSecrets`). */
// deno-lint-ignore no-explicit-any
export const resealables: Resealable<any>[] = [
  signingKeyResealable,
  pepperResealable,
  walletKeyResealable,
  p256KeyResealable,
  webhookSecretsResealable,
  offerResealable,
];
