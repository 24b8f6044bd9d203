/**
 * The composition: `buildServices` makes every long-lived object of the service exactly once
 * (resolver, token verifier, service signer, API key index, wallet, agents, webhooks, DIDComm with
 * its handler registry, credential holder, proof prover, dispatcher) and hands each to the objects
 * that use it as an argument. Setup (the signing key, outbox handlers, message handlers) runs here, before the
 * app is built. `main.ts`, the tasks and every test build through this one function; tests pass
 * overrides (clock, outbound client, KV, dispatcher timing, a fake DIDComm layer).
 *
 * @module
 */
import * as jose from "jose";
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
import { type Config, ConfigError } from "./config.ts";
import {
  AUTO_ACCEPT_KIND,
  autoAcceptHandler,
  ContextStore,
  CredentialHolder,
  type HolderDidcomm,
  type LdDidDocument,
  registerHolderHandlers,
  verifyCredential,
} from "./credentials/mod.ts";
import { type Resealable, resealAll, SecretBox } from "./crypto/mod.ts";
import { createDidResolver, type DidResolver, type DidResolverOptions } from "./did/mod.ts";
import { DidcommService, queueDidRotation } from "./didcomm/mod.ts";
import { createTokenVerifier, staticKeyGetter, type TokenVerifier } from "./http/mod.ts";
import { withBusyRetry } from "./kv/mod.ts";
import { log } from "./log.ts";
import {
  checkOutboundUrl,
  createSafeFetch,
  type HostLookup,
  type SafeFetch,
} from "./outbound/mod.ts";
import { Dispatcher, type DispatcherOptions } from "./outbox/mod.ts";
import { DEFERRED_KIND, deferredHandler, offerResealable, Oid4vcHolder } from "./openid4vc/mod.ts";
import { credentialSource, Oid4vpHolder, TrustAnchors } from "./openid4vp/mod.ts";
import { StatusChecker, StatusService } from "./status/mod.ts";
import {
  type CredentialStatusCheck,
  PROOF_AUTO_ACCEPT_KIND,
  proofAutoAcceptHandler,
  ProofProver,
  registerProverHandlers,
} from "./proofs/mod.ts";
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
  /** The DIDComm layer the credential holder queues its messages with (a fake in unit tests). */
  holderDidcomm?: HolderDidcomm;
  /** The status check of stored credentials before a presentation (tests of revoked ones). */
  credentialStatus?: CredentialStatusCheck;
}

/** Builds every service from the configuration and the open KV database, then runs their setup. */
export async function buildServices(
  config: Config,
  database: Deno.Kv,
  options: BuildOptions = {},
): Promise<Services> {
  if (!config.secretsKey) throw new ConfigError("SECRETS_KEY is required.");
  // Several processes may share the database: every call survives a busy SQLite file.
  const kv = withBusyRetry(database);
  const now = options.now ?? Date.now;
  const secrets = new SecretBox(config.secretsKey, config.previousSecretsKeys);
  const safeFetch = options.safeFetch ??
    createSafeFetch(config.outbound, { resolveHost: options.resolveHost });
  const verifier = createTokenVerifier({
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    algorithms: config.auth.algorithms,
    key: config.auth.jwksUrl
      ? jose.createRemoteJWKSet(new URL(config.auth.jwksUrl), {
        timeoutDuration: options.jwksTimeoutMs ?? 5000,
        cooldownDuration: 30_000,
        cacheMaxAge: 10 * 60_000,
      })
      : staticKeyGetter(config.auth.publicKey!),
    kind: "user",
  }, { now });
  const dispatcher = new Dispatcher(kv, {
    leaseMs: config.outboxLeaseSeconds * 1000,
    // An outbox message's `leaseOwner` names the process that holds it.
    owner: `pid-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`,
    ...options.dispatcher,
    now,
  });
  // Hosts the operator configured (the DID plug-ins' chain RPC URLs): the same client, without
  // the private-address policy (CONTRACT "DID method plug-ins").
  const operatorFetch = createSafeFetch(
    { allowPrivate: true, requireHttps: false },
    { resolveHost: options.resolveHost },
  );
  const resolver = createDidResolver(
    { config, kv, safeFetch, operatorFetch, now },
    options.didResolver,
  );
  const signer = await loadServiceSigner({ kv, secrets, config, verifier, now });
  const wallet = new Wallet(kv, secrets);
  const apiKeys = new ApiKeyIndex({ kv, secrets, secretsKey: config.secretsKey, now });

  const directory = new AgentDirectory(kv);
  const didcomm = new DidcommService({
    kv,
    wallet,
    agents: directory,
    resolver,
    dispatcher,
    safeFetch,
    now,
  });
  // Agents change DIDComm state: a new endpoint rotates the org's connection DIDs, and an agent
  // with connections is not removed without force. DIDComm lends both as arguments.
  const agents = new AgentService({
    kv,
    wallet,
    apiKeys,
    signer,
    dispatcher,
    now,
    outbound: config.outbound,
    resolveHost: options.resolveHost,
    onEndpointChange: queueDidRotation,
    hasConnections: (orgId) => didcomm.hasConnections(orgId),
  });
  const webhooks = new WebhookService({
    kv,
    secrets,
    outbound: config.outbound,
    resolveHost: options.resolveHost,
    dispatcher,
    now,
  });
  const contexts = new ContextStore({ kv, safeFetch, allow: config.jsonldContextAllow, now });
  const resolveDid = async (did: string) =>
    ((await resolver.resolve(did)).didDocument ?? null) as LdDidDocument | null;
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
      verifyLd: (credential) =>
        verifyCredential(credential, { resolveDid, contexts, now: new Date(now()) }),
    }),
  });
  const holder = new CredentialHolder({
    kv,
    dispatcher,
    now,
    agents: directory,
    didcomm: options.holderDidcomm ?? didcomm,
    resolveDid,
    contexts,
    status,
  });

  const openid4vc = new Oid4vcHolder({
    kv,
    secrets,
    safeFetch,
    wallet,
    resolver,
    dispatcher,
    now,
    status,
    contexts,
  });

  const prover = new ProofProver({
    kv,
    dispatcher,
    now,
    agents: directory,
    wallet,
    didcomm: options.holderDidcomm ?? didcomm,
    credentials: holder,
    contexts,
    credentialStatus: options.credentialStatus ?? (async (orgId, record) => {
      const subject = { format: "ldp_vc", credential: record.credential } as const;
      return (await status.beforePresentation(orgId, record.id, subject)).state;
    }),
  });

  const openid4vp = new Oid4vpHolder({
    kv,
    wallet,
    resolver,
    safeFetch,
    dispatcher,
    now,
    credentials: credentialSource({
      sdJwt: (orgId, q) => openid4vc.credentials(orgId, q),
      w3c: (orgId, q) => holder.listW3c(orgId, q),
    }, contexts),
    contexts,
    checkUrl: (url) => checkOutboundUrl(url, config.outbound, options.resolveHost),
    anchors: await loadTrustAnchors(config),
    // Checked before a credential is offered and before it is presented.
    checkStatus: (orgId, c) =>
      status.beforePresentation(
        orgId,
        c.id,
        c.format === "ldp_vc"
          ? { format: "ldp_vc", credential: c.claims }
          : { format: "dc+sd-jwt", compact: c.compact! },
      ),
  });

  registerHolderHandlers(didcomm.handlers, holder, kv);
  registerProverHandlers(didcomm.handlers, prover, kv);
  for (const [kind, handler] of Object.entries(didcomm.outboxHandlers())) {
    dispatcher.register(kind, handler);
  }
  dispatcher.register(
    WEBHOOK_KIND,
    createWebhookHandler({ kv, secrets, safeFetch, now }, options.webhookDelivery),
  );
  dispatcher.register(AUTO_ACCEPT_KIND, autoAcceptHandler(holder));
  dispatcher.register(PROOF_AUTO_ACCEPT_KIND, proofAutoAcceptHandler(prover));
  dispatcher.register(
    DEFERRED_KIND,
    deferredHandler({ kv, secrets, safeFetch, resolver, dispatcher, status, contexts, now }),
  );

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
    prover,
  };
}

/** `OID4VP_X509_TRUST_ANCHORS` read (a PEM bundle, or a file holding one) and parsed. */
async function loadTrustAnchors(config: Config): Promise<TrustAnchors | undefined> {
  const setting = config.oid4vpX509TrustAnchors;
  if (!setting) return undefined;
  let pem: string;
  if ("pem" in setting) pem = setting.pem;
  else {
    try {
      pem = await Deno.readTextFile(setting.path);
    } catch (err) {
      throw new ConfigError(
        `OID4VP_X509_TRUST_ANCHORS names the file "${setting.path}", which cannot be read (${
          (err as Error).message
        }); give a PEM bundle of CA certificates or the path of one.`,
      );
    }
  }
  try {
    return await TrustAnchors.fromPem(pem);
  } catch (err) {
    throw new ConfigError(
      `OID4VP_X509_TRUST_ANCHORS is not a usable PEM bundle of CA certificates: ${
        (err as Error).message
      }.`,
    );
  }
}

/** Every kind of value sealed with SECRETS_KEY, for a key rotation. */
// deno-lint-ignore no-explicit-any
export const resealables: Resealable<any>[] = [
  signingKeyResealable,
  pepperResealable,
  walletKeyResealable,
  p256KeyResealable,
  webhookSecretsResealable,
  offerResealable,
];

/**
 * Seals every sealed value in KV again under the current SECRETS_KEY and logs what it did.
 * True when every value opened (then SECRETS_KEY_PREVIOUS can be removed).
 */
export async function rotateSecrets(kv: Deno.Kv, box: SecretBox): Promise<boolean> {
  const reports = await resealAll(kv, box, resealables);
  for (const r of reports) {
    log(r.failed.length ? "error" : "info", "re-sealed under the current SECRETS_KEY", {
      values: r.name,
      checked: r.checked,
      resealed: r.resealed,
      unreadable: r.failed.length,
      ...(r.failed.length ? { unreadableKeys: r.failed.slice(0, 20) } : {}),
    });
  }
  const ok = reports.every((r) => r.failed.length === 0);
  log(
    ok ? "info" : "error",
    ok
      ? "every sealed value is under the current SECRETS_KEY; SECRETS_KEY_PREVIOUS can be removed"
      : "some sealed values open with no configured key; keep SECRETS_KEY_PREVIOUS and check them",
  );
  return ok;
}
