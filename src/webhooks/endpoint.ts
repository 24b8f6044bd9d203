import type { Resealable, SecretBox } from "../crypto/mod.ts";
import { keys } from "../kv/mod.ts";
import { Lru } from "../base/mod.ts";
import { importSigningKey, newWebhookSecret } from "./signature.ts";

/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A signing secret at rest: sealed with SECRETS_KEY, bound to its org. */
export interface StoredSecret {
  sealed: string;
  createdAt: string;
  /** ms since epoch after which it no longer signs; absent for the current secret. */
  expiresAt?: number;
}

/** The org's one webhook endpoint, stored at `["webhook", orgId]`. */
export interface WebhookEndpoint {
  orgId: string;
  url: string;
  createdAt: string;
  updatedAt: string;
  /** Newest (current) first; older ones only until their `expiresAt`. */
  secrets: StoredSecret[];
  /** Set when the receiver answered 410 Gone; cleared by registering again. */
  disabledAt?: string;
  disabledReason?: string;
}

/** What `GET /notification/webhook-endpoint` shows: never a secret. */
export interface WebhookEndpointView {
  orgId: string;
  notificationWebhook: string;
  createdAt: string;
  updatedAt: string;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: string | null;
  secretCreatedAt: string | null;
  /** When the previous secret stops signing, while a rotation overlap lasts. */
  previousSecretExpiresAt: string | null;
}

const aad = (orgId: string) => `webhook-secret:${orgId}`;

/** Reads the org's endpoint entry. */
export function readEndpoint(
  kv: Deno.Kv,
  orgId: string,
): Promise<Deno.KvEntryMaybe<WebhookEndpoint>> {
  return kv.get<WebhookEndpoint>(keys.webhook(orgId));
}

/** For a SECRETS_KEY rotation: the signing secrets of every org's endpoint. */
export const webhookSecretsResealable: Resealable<WebhookEndpoint> = {
  name: "webhook secrets",
  select: { prefix: keys.webhookPrefix() },
  async reseal(value, box) {
    let changed = false;
    const secrets: StoredSecret[] = [];
    for (const s of value.secrets) {
      const sealed = await box.reseal(s.sealed, aad(value.orgId));
      if (sealed !== undefined) changed = true;
      secrets.push(sealed === undefined ? s : { ...s, sealed });
    }
    return changed ? { ...value, secrets } : undefined;
  },
};

/** Creates a secret and its sealed form. The plain secret is for the one-time display only. */
export async function createSecret(
  box: SecretBox,
  orgId: string,
  now: number,
): Promise<{ secret: string; stored: StoredSecret }> {
  const secret = newWebhookSecret();
  const sealed = await box.seal(secret, aad(orgId));
  return { secret, stored: { sealed, createdAt: new Date(now).toISOString() } };
}

/** The secrets that sign at `now`: the current one and unexpired rotated-out ones. */
export function liveSecrets(ep: WebhookEndpoint, now: number): StoredSecret[] {
  return ep.secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now);
}

/** Puts a new current secret first; the old current one expires after the overlap. */
export function rotateSecrets(
  ep: WebhookEndpoint,
  fresh: StoredSecret,
  now: number,
): StoredSecret[] {
  const old = liveSecrets(ep, now).map((s) =>
    s.expiresAt === undefined ? { ...s, expiresAt: now + SECRET_OVERLAP_MS } : s
  );
  // At most the new one and the two most recent predecessors still in their overlap.
  return [fresh, ...old.slice(0, 2)];
}

/** The view without secrets. */
export function endpointView(ep: WebhookEndpoint, now: number): WebhookEndpointView {
  const live = liveSecrets(ep, now);
  const previous = live.slice(1).map((s) => s.expiresAt ?? 0);
  return {
    orgId: ep.orgId,
    notificationWebhook: ep.url,
    createdAt: ep.createdAt,
    updatedAt: ep.updatedAt,
    enabled: !ep.disabledAt,
    disabledAt: ep.disabledAt ?? null,
    disabledReason: ep.disabledReason ?? null,
    secretCreatedAt: live[0]?.createdAt ?? null,
    previousSecretExpiresAt: previous.length ? new Date(Math.max(...previous)).toISOString() : null,
  };
}

/**
 * Opens sealed secrets into HMAC keys, remembering them by sealed value (bounded), so a burst
 * of deliveries does not decrypt and import the same secret again and again.
 */
export class SigningKeyCache {
  readonly #box: SecretBox;
  readonly #cache: Lru<Promise<CryptoKey>>;

  constructor(box: SecretBox, max = 1000) {
    this.#box = box;
    this.#cache = new Lru(max);
  }

  /** The HMAC keys of `secrets`, in order. */
  keysFor(orgId: string, secrets: StoredSecret[]): Promise<CryptoKey[]> {
    return Promise.all(secrets.map((s) => this.#key(orgId, s.sealed)));
  }

  #key(orgId: string, sealed: string): Promise<CryptoKey> {
    const id = `${orgId}\u0000${sealed}`;
    let k = this.#cache.get(id);
    if (!k) {
      k = this.#box.openString(sealed, aad(orgId)).then(importSigningKey);
      k.catch(() => this.#cache.delete(id));
      this.#cache.set(id, k);
    }
    return k;
  }
}
