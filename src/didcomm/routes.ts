/**
 * DIDComm routes: `POST /didcomm` (public; the envelope is the authentication) and the org's
 * connections: `POST /orgs/{orgId}/connections/receive-invitation`, `GET /orgs/{orgId}/connections`,
 * `GET /orgs/{orgId}/connections/{id}` (any member role of the org or its agent token).
 *
 * Check order of org routes: 401 (token) → 400 (malformed `orgId`) → 403 (not a member) → 400
 * (body, query) → 404/409.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { AppError, badRequest } from "../base/mod.ts";
import { createRouter, errorResponses, OrgParams, orgRecordRoutes } from "../http/mod.ts";
import { CONNECTION_STATES } from "./connections/record.ts";
import { EnvelopeError } from "./envelope.ts";
import type { DidcommService } from "./service.ts";

/** Content types `POST /didcomm` accepts. */
export const DIDCOMM_CONTENT_TYPES = [
  "application/didcomm-envelope-enc",
  "application/ssi-agent-wire",
];

const Envelope = z.object({
  protected: z.string(),
  iv: z.string(),
  ciphertext: z.string(),
  tag: z.string(),
}).openapi("DidCommEnvelope");

const Connection = z.object({
  id: z.string().uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
  state: z.enum(CONNECTION_STATES),
  role: z.literal("requester"),
  did: z.string(),
  theirDid: z.string().nullable(),
  theirLabel: z.string().nullable(),
  outOfBandId: z.string(),
  threadId: z.string(),
  protocol: z.enum(["https://didcomm.org/didexchange/1.1", "https://didcomm.org/connections/1.0"]),
  errorMessage: z.string().optional(),
}).openapi("Connection");

const ReceiveInvitation = z.object({
  invitationUrl: z.string().max(16_384).optional().openapi({
    example: "https://issuer.example/?oob=eyJAdHlwZSI6...",
  }),
  invitation: z.record(z.string(), z.unknown()).optional().openapi({
    description: "The invitation JSON (out-of-band 1.1 or Connections 1.0).",
  }),
}).strict().refine((b) => (b.invitationUrl === undefined) !== (b.invitation === undefined), {
  message: "Give exactly one of invitationUrl and invitation.",
}).openapi("ReceiveInvitationRequest");

const IdParams = OrgParams.extend({
  id: z.string().max(64).openapi({ param: { name: "id", in: "path" } }),
});

const ListQuery = z.object({
  limit: z.string().optional(),
  cursor: z.string().max(1024).optional(),
  state: z.enum(CONNECTION_STATES).optional(),
});

/** What the DIDComm routes use. */
export interface DidcommRoutesDeps {
  didcomm: DidcommService;
}

/** The DIDComm feature router. */
export function didcommRoutes({ didcomm }: DidcommRoutesDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "post",
      path: "/didcomm",

      operationId: "receiveDidcommEnvelope",
      tags: ["DIDComm"],
      summary: "Inbound DIDComm v1 envelope (RFC 0019) for any configured org",
      security: [],
      request: {
        body: {
          required: true,
          content: {
            "application/didcomm-envelope-enc": { schema: Envelope },
            "application/ssi-agent-wire": { schema: Envelope },
          },
        },
      },
      responses: {
        202: { description: "Stored; processed asynchronously (problems go back as reports)." },
        ...errorResponses(400, 413, 415),
      },
    }),
    async (c) => {
      const ct = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (!DIDCOMM_CONTENT_TYPES.includes(ct)) {
        throw new AppError(
          "unsupported_media_type",
          415,
          `Send DIDComm envelopes as ${DIDCOMM_CONTENT_TYPES.join(" or ")}.`,
        );
      }
      const body = new Uint8Array(await c.req.arrayBuffer());
      try {
        await didcomm.receiveEnvelope(body);
      } catch (err) {
        // One uniform 400 for every cause (issue 6), oversize included; a sender on a completed
        // connection learns of an oversize message from a problem report instead.
        if (err instanceof EnvelopeError) {
          throw badRequest("The DIDComm message could not be accepted.");
        }
        throw err;
      }
      return c.body(null, 202);
    },
  );

  const connections = orgRecordRoutes(app, ["Connections"]);
  const connection = {
    description: "Connection",
    content: { "application/json": { schema: Connection } },
  };

  connections.create({
    path: "/orgs/{orgId}/connections/receive-invitation",
    operationId: "receiveInvitation",
    summary: "Accept an out-of-band (or Connections 1.0) invitation: starts the handshake",
    description:
      "invitationUrl carries the invitation (?oob= or ?c_i=), or is a short link: then it is " +
      "fetched once (Accept: application/json); a JSON answer is the invitation, a redirect is " +
      "read for its ?oob=/?c_i= location and not followed.",
    body: ReceiveInvitation,
    created: connection,
    errors: [400, 401, 403, 409, 502],
  }, (orgId, body) => didcomm.receiveInvitation(orgId, body));

  connections.list({
    path: "/orgs/{orgId}/connections",
    operationId: "listConnections",
    summary: "The org's connections, newest first",
    query: ListQuery,
    page: {
      description: "A page of connections",
      content: {
        "application/json": {
          schema: z.object({ data: z.array(Connection), nextCursor: z.string().nullable() }),
        },
      },
    },
    errors: [400, 401, 403],
  }, (orgId, query) => didcomm.listConnections(orgId, query));

  connections.record({
    method: "get",
    path: "/orgs/{orgId}/connections/{id}",
    operationId: "getConnection",
    summary: "One connection of the org",
    params: IdParams,
    ok: connection,
    errors: [400, 401, 403, 404],
  }, (orgId, id) => didcomm.getConnection(orgId, id));

  connections.record({
    method: "post",
    path: "/orgs/{orgId}/connections/{id}/hangup",
    operationId: "hangUpConnection",
    summary: "End a completed connection: DID Rotate hangup to the other side, record abandoned",
    params: IdParams,
    ok: connection,
    errors: [400, 401, 403, 404, 409],
  }, (orgId, id) => didcomm.hangUp(orgId, id));

  return app;
}
