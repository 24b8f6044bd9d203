/**
 * The webhooks service: an org's one endpoint (register, read, remove, rotate its secret, send a
 * test event) and its delivery log (list, re-send a dead delivery). Route handlers authorize and
 * call these; every write is a version-checked `atomicUpdate` (a lost race is read again).
 *
 * @module
 */
import type { SecretBox } from "../crypto/mod.ts";
import { conflict, notFound } from "../base/mod.ts";
import { atomicUpdate, keys, type Page } from "../kv/mod.ts";
import type { HostLookup, OutboundPolicy } from "../outbound/mod.ts";
import { type OutboxMessage, requeueDead } from "../outbox/mod.ts";
import {
  type DeliveryStatus,
  type DeliveryView,
  deliveryView,
  listDeliveries,
  readAttempts,
} from "./delivery_log.ts";
import { emit } from "./emit.ts";
import {
  createSecret,
  endpointView,
  readEndpoint,
  rotateSecrets,
  type WebhookEndpoint,
  type WebhookEndpointView,
} from "./endpoint.ts";
import { WEBHOOK_KIND, type WebhookEvent } from "./events.ts";
import { validateWebhookUrl } from "./validate.ts";

/** What the service is built from. */
export interface WebhookServiceDeps {
  kv: Deno.Kv;
  secrets: SecretBox;
  /** Registration checks the URL against the outbound policy. */
  outbound: OutboundPolicy;
  /** How the URL's host is resolved for that check (default: the system's DNS). */
  resolveHost?: HostLookup;
  dispatcher: { wake(): void };
  now: () => number;
}

/** The outcome of a registration: the endpoint, and the secret when one was created. */
export interface Registration {
  endpoint: WebhookEndpoint;
  /** Shown once: only when this registration created the secret. */
  secret?: string;
}

/** A webhook delivery as far as authorization needs it. */
export interface DeliveryRef {
  id: string;
  orgId: string;
  status: OutboxMessage["status"];
}

/** Each org's webhook endpoint and its deliveries. */
export class WebhookService {
  readonly #d: WebhookServiceDeps;

  constructor(deps: WebhookServiceDeps) {
    this.#d = deps;
  }

  /** Registers or replaces the org's endpoint; the first registration creates the secret. */
  async register(orgId: string, url: string): Promise<Registration> {
    const { kv, secrets } = this.#d;
    await validateWebhookUrl(url, this.#d.outbound, undefined, this.#d.resolveHost);
    return await atomicUpdate(kv, async (op) => {
      const now = this.#d.now();
      const at = new Date(now).toISOString();
      const cur = await readEndpoint(kv, orgId);
      let secret: string | undefined;
      let next: WebhookEndpoint;
      if (cur.value) {
        next = { ...cur.value, url, updatedAt: at };
        delete next.disabledAt;
        delete next.disabledReason;
      } else {
        const created = await createSecret(secrets, orgId, now);
        secret = created.secret;
        next = { orgId, url, createdAt: at, updatedAt: at, secrets: [created.stored] };
      }
      op.check(cur).set(keys.webhook(orgId), next);
      return { endpoint: next, ...(secret ? { secret } : {}) };
    }, { conflict: () => this.#changing(orgId) });
  }

  /** The org's endpoint without secrets; 404 when none is registered. */
  async get(orgId: string): Promise<WebhookEndpointView> {
    return endpointView((await this.#mustRead(orgId)).value, this.#d.now());
  }

  /** Removes the org's endpoint and its secrets; 404 when none is registered. */
  async remove(orgId: string): Promise<void> {
    await atomicUpdate(this.#d.kv, async (op) => {
      const entry = await this.#mustRead(orgId);
      op.check(entry).delete(entry.key);
    }, { conflict: () => this.#changing(orgId) });
  }

  /** A new signing secret, returned once; the old one keeps signing beside it for 24 h. */
  async rotateSecret(orgId: string): Promise<string> {
    return await atomicUpdate(this.#d.kv, async (op) => {
      const entry = await this.#mustRead(orgId);
      const now = this.#d.now();
      const created = await createSecret(this.#d.secrets, orgId, now);
      const next: WebhookEndpoint = {
        ...entry.value,
        secrets: rotateSecrets(entry.value, created.stored, now),
        updatedAt: new Date(now).toISOString(),
      };
      op.check(entry).set(entry.key, next);
      return created.secret;
    }, { conflict: () => this.#changing(orgId) });
  }

  /** Queues a `webhook.test` event; 409 while the endpoint is disabled. Returns the event id. */
  async sendTest(orgId: string, requestedBy: string): Promise<string> {
    const id = await atomicUpdate(this.#d.kv, async (op) => {
      const entry = await this.#mustRead(orgId);
      if (entry.value.disabledAt) {
        throw conflict(
          `The webhook endpoint of organization "${orgId}" is disabled (${entry.value.disabledReason}); register it again first.`,
        );
      }
      op.check(entry);
      return emit(op, orgId, "webhook.test", {
        message: "This is a test event.",
        requestedBy,
      }, this.#d.now()).id;
    }, { conflict: () => this.#changing(orgId) });
    this.#d.dispatcher.wake();
    return id;
  }

  /** One page of the org's deliveries, newest first. */
  deliveries(
    orgId: string,
    opts: { limit: number; cursor?: string; status?: DeliveryStatus },
  ): Promise<Page<DeliveryView>> {
    return listDeliveries(this.#d.kv, orgId, opts);
  }

  /** The delivery `id` (its org and status), or undefined when there is none. */
  async findDelivery(id: string): Promise<DeliveryRef | undefined> {
    const msg = (await this.#d.kv.get<OutboxMessage<WebhookEvent>>(keys.outboxMessage(id))).value;
    if (!msg || msg.kind !== WEBHOOK_KIND || msg.orgId === null) return undefined;
    return { id: msg.id, orgId: msg.orgId, status: msg.status };
  }

  /** Sends a dead delivery again with a fresh retry schedule; 409 unless it is dead. */
  async retryDelivery(id: string): Promise<DeliveryView> {
    const ref = await this.findDelivery(id);
    if (!ref) throw notFound(`No webhook delivery "${id}" was found.`);
    if (ref.status !== "dead") {
      throw conflict(
        `Delivery "${id}" is ${ref.status}, not dead; only dead deliveries can be retried.`,
      );
    }
    const res = await requeueDead<WebhookEvent>(this.#d.kv, id, this.#d.now());
    if (!res.message) throw notFound(`No webhook delivery "${id}" was found.`);
    if (!res.ok) {
      throw conflict(
        `Delivery "${id}" is ${res.message.status}, not dead; only dead deliveries can be retried.`,
      );
    }
    this.#d.dispatcher.wake();
    return deliveryView(res.message, await readAttempts(this.#d.kv, id));
  }

  #changing(orgId: string): Error {
    return conflict(
      `The webhook endpoint of organization "${orgId}" kept changing while this request ran; try again.`,
    );
  }

  async #mustRead(orgId: string): Promise<Deno.KvEntry<WebhookEndpoint>> {
    const entry = await readEndpoint(this.#d.kv, orgId);
    if (!entry.value) {
      throw notFound(`No webhook endpoint is registered for organization "${orgId}".`);
    }
    return entry as Deno.KvEntry<WebhookEndpoint>;
  }
}
