/**
 * The event catalogue (CONTRACT.md "Notifications"): every event type, when it is sent and the
 * shape of its `data`. This is the one place an event type is declared: `emit()` takes only these
 * types, and `GET /openapi.json` lists each under `webhooks` with its payload schema
 * (`eventWebhooks`). Shapes of records owned by other features are written here from the
 * contract (the webhooks folder imports no feature).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";

const iso = z.string().openapi({ format: "date-time", example: "2025-01-01T12:00:00.000Z" });

/** A DIDComm credential exchange record (Credo's CredentialExchangeRecord JSON). */
const CredentialExchange = z.object({
  id: z.string(),
  createdAt: iso,
  updatedAt: iso,
  state: z.enum([
    "proposal-sent",
    "proposal-received",
    "offer-sent",
    "offer-received",
    "declined",
    "request-sent",
    "request-received",
    "credential-issued",
    "credential-received",
    "done",
    "abandoned",
  ]),
  role: z.enum(["holder", "issuer"]),
  connectionId: z.string(),
  threadId: z.string(),
  protocolVersion: z.literal("v2"),
  credentialAttributes: z.array(z.object({ name: z.string(), value: z.string() })),
  credentials: z.array(
    z.object({ credentialRecordType: z.string(), credentialRecordId: z.string() }),
  ),
  metadata: z.record(z.string(), z.unknown()),
  _tags: z.record(z.string(), z.string()),
  errorMessage: z.string().optional(),
  previousState: z.string().nullable().openapi({ description: "The state it left." }),
});

/** An OpenID4VCI offer record (CONTRACT "OpenID4VCI holder"). */
const CredentialOffer = z.object({
  id: z.string(),
  orgId: z.string(),
  protocol: z.literal("openid4vci"),
  state: z.enum(["offer-received", "deferred", "done", "declined", "failed"]),
  credentialIssuer: z.string(),
  credentialConfigurationIds: z.array(z.string()),
  issuerName: z.string().optional(),
  txCodeRequired: z.boolean(),
  credentialIds: z.array(z.string()).optional(),
  errorMessage: z.string().optional(),
  createdAt: iso,
  updatedAt: iso,
  previousState: z.string().nullable().optional(),
});

const ConnectionView = z.object({
  id: z.string(),
  createdAt: iso,
  updatedAt: iso,
  state: z.enum([
    "start",
    "invitation-received",
    "request-sent",
    "response-received",
    "completed",
    "abandoned",
  ]),
  role: z.literal("requester"),
  did: z.string(),
  theirDid: z.string().nullable(),
  theirLabel: z.string().nullable(),
  outOfBandId: z.string(),
  threadId: z.string(),
  protocol: z.string(),
  errorMessage: z.string().optional(),
});

/** An OpenID4VP presentation request record (CONTRACT "OpenID4VP holder"). */
const PresentationRequest = z.object({
  id: z.string(),
  orgId: z.string(),
  protocol: z.literal("openid4vp"),
  state: z.enum(["request-received", "done", "declined", "failed"]),
  verifier: z.object({ clientId: z.string(), prefix: z.string(), name: z.string().optional() }),
  responseMode: z.enum(["direct_post", "direct_post.jwt"]),
  responseUri: z.string(),
  queries: z.array(z.object({
    id: z.string(),
    required: z.boolean(),
    matches: z.array(z.object({
      credentialId: z.string(),
      format: z.enum(["dc+sd-jwt", "ldp_vc"]),
      disclosedClaims: z.array(z.array(z.union([z.string(), z.number()]))),
    })),
  })),
  redirectUri: z.string().optional(),
  presented: z.array(z.object({ queryId: z.string(), credentialId: z.string() })).optional(),
  errorMessage: z.string().optional(),
  expiresAt: iso.optional(),
  createdAt: iso,
  updatedAt: iso,
  previousState: z.string().nullable().openapi({ description: "The state it left." }),
});

/** A DIDComm Present Proof 2.0 record (Credo's ProofExchangeRecord JSON). */
const ProofExchange = z.object({
  id: z.string(),
  createdAt: iso,
  updatedAt: iso,
  state: z.enum(["request-received", "presentation-sent", "done", "declined", "abandoned"]),
  role: z.literal("prover"),
  connectionId: z.string(),
  threadId: z.string(),
  protocolVersion: z.literal("v2"),
  metadata: z.record(z.string(), z.unknown()),
  _tags: z.record(z.string(), z.string()),
  errorMessage: z.string().optional(),
  verifier: z.object({ connectionId: z.string(), label: z.string().nullable() }),
  requestFormat: z.string(),
  presentationDefinition: z.object({
    id: z.string(),
    name: z.string().optional(),
    purpose: z.string().optional(),
  }).optional(),
  inputDescriptors: z.array(z.object({
    id: z.string(),
    name: z.string().optional(),
    purpose: z.string().optional(),
    group: z.array(z.string()).optional(),
    requestedFields: z.array(z.string()),
    matches: z.array(z.object({
      credentialId: z.string(),
      format: z.string(),
      disclosedClaims: z.array(z.array(z.string())),
    })),
  })),
  selection: z.record(z.string(), z.string()).optional().openapi({
    description: "Input descriptor id → the stored credential the answer carries.",
  }),
  unanswerable: z.string().optional(),
  previousState: z.string().nullable().openapi({ description: "The state it left." }),
});

/** One event type: when it is sent, and the schema of its `data`. */
export interface EventDefinition {
  summary: string;
  data: z.ZodType;
}

/** The catalogue: add an event type here and it can be emitted and is documented. */
export const EVENT_CATALOGUE = {
  "credential.state_changed": {
    summary:
      "A credential exchange changed state (DIDComm Issue Credential 2.0), or an OpenID4VCI offer did (`protocol: openid4vci`).",
    data: z.union([CredentialExchange, CredentialOffer]),
  },
  "credential.status_changed": {
    summary: "A stored credential's status (revocation, suspension) changed.",
    data: z.object({
      id: z.string(),
      orgId: z.string(),
      format: z.enum(["ldp_vc", "dc+sd-jwt"]),
      status: z.object({
        state: z.enum(["valid", "revoked", "suspended", "unknown"]),
        checkedAt: iso,
        message: z.string().optional(),
      }),
    }),
  },
  "connection.state_changed": {
    summary: "A DIDComm connection passed through a state (one event per state).",
    data: z.object({
      connectionId: z.string(),
      state: z.string(),
      previousState: z.string().nullable(),
      connection: ConnectionView,
    }),
  },
  "presentation.state_changed": {
    summary: "An OpenID4VP presentation request was received or changed state.",
    data: PresentationRequest,
  },
  "proof.state_changed": {
    summary: "A DIDComm Present Proof 2.0 request was received or changed state.",
    data: ProofExchange,
  },
  "agent.configured": {
    summary: "The org's agent was configured (`created`) or changed (`updated`); never its key.",
    data: z.object({
      id: z.string(),
      orgId: z.string(),
      walletName: z.string(),
      agentEndpoint: z.string(),
      did: z.string(),
      createdAt: iso,
      action: z.enum(["created", "updated"]),
    }),
  },
  "webhook.test": {
    summary: "Sent by POST /notification/webhook-endpoint/test.",
    data: z.object({ message: z.string(), requestedBy: z.string() }),
  },
  "message.delivery_failed": {
    summary: "An outgoing DIDComm message was given up on (dead-lettered).",
    data: z.object({
      outboxId: z.string(),
      connectionId: z.string(),
      messageId: z.string(),
      messageType: z.string(),
      threadId: z.string(),
      endpoint: z.string(),
      attempts: z.number().int(),
      lastStatus: z.number().int().nullable(),
      lastError: z.string().nullable(),
    }),
  },
} satisfies Record<string, EventDefinition>;

/** One of the catalogue's event types. */
export type EventType = keyof typeof EVENT_CATALOGUE;

/** Every event type of the catalogue. */
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** Every event: `{id, type, timestamp, orgId, data}`; `id` is stable across delivery retries. */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: EventType;
  /** ISO 8601 UTC. */
  timestamp: string;
  orgId: string;
  data: D;
}

/** Outbox kind of webhook deliveries. */
export const WEBHOOK_KIND = "webhook";
