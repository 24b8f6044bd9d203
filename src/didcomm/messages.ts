/**
 * DIDComm v1 plaintext messages: the shape we rely on, message type parsing (RFC 0003 with the
 * legacy `did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/` prefix) and threading (RFC 0008).
 *
 * @module
 */

/** A DIDComm v1 plaintext message: `@type` and `@id` plus whatever the protocol defines. */
export interface DidCommMessage {
  "@type": string;
  "@id": string;
  "~thread"?: { thid?: string; pthid?: string; [k: string]: unknown };
  [field: string]: unknown;
}

/** The legacy message type prefix, still sent by old agents. */
export const LEGACY_PREFIX = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/";
/** The current message type prefix. */
export const DIDCOMM_PREFIX = "https://didcomm.org/";

/** Largest `@id` accepted (characters). */
export const MAX_MESSAGE_ID_LENGTH = 255;

/** Message types this module sends or handles. */
export const MessageTypes = {
  oobInvitation: "https://didcomm.org/out-of-band/1.1/invitation",
  connectionsInvitation: "https://didcomm.org/connections/1.0/invitation",
  didExchangeRequest: "https://didcomm.org/didexchange/1.1/request",
  didExchangeResponse: "https://didcomm.org/didexchange/1.1/response",
  didExchangeComplete: "https://didcomm.org/didexchange/1.1/complete",
  didExchangeProblemReport: "https://didcomm.org/didexchange/1.1/problem_report",
  connectionsRequest: "https://didcomm.org/connections/1.0/request",
  connectionsResponse: "https://didcomm.org/connections/1.0/response",
  connectionsProblemReport: "https://didcomm.org/connections/1.0/problem_report",
  trustPing: "https://didcomm.org/trust_ping/1.0/ping",
  trustPingResponse: "https://didcomm.org/trust_ping/1.0/ping_response",
  ack: "https://didcomm.org/notification/1.0/ack",
  problemReport: "https://didcomm.org/notification/1.0/problem-report",
} as const;

/** Protocol URIs of the handshakes this agent speaks. */
export const Protocols = {
  didExchange: "https://didcomm.org/didexchange/1.1",
  connections: "https://didcomm.org/connections/1.0",
} as const;

/** One of the handshake protocols of a connection record. */
export type HandshakeProtocol = typeof Protocols[keyof typeof Protocols];

/** A parsed message type URI: `{doc uri}{protocol}/{major.minor}/{name}`. */
export interface ParsedMessageType {
  /** `https://didcomm.org/` (legacy prefixes are rewritten to it). */
  docUri: string;
  protocol: string;
  major: number;
  minor: number;
  name: string;
  /** `{docUri}{protocol}/{major}.{minor}` */
  protocolUri: string;
  /** The normalised full type: `{protocolUri}/{name}`. */
  type: string;
}

/** Rewrites the legacy `did:sov:…;spec/` prefix to `https://didcomm.org/`. */
export function normalizeType(type: string): string {
  return type.startsWith(LEGACY_PREFIX) ? DIDCOMM_PREFIX + type.slice(LEGACY_PREFIX.length) : type;
}

/** Parses a message type URI; undefined when it does not follow RFC 0003. */
export function parseMessageType(type: string): ParsedMessageType | undefined {
  const t = normalizeType(type);
  const m = /^(.*[/:;])([a-z0-9._-]+)\/(\d+)\.(\d+)\/([a-zA-Z0-9._-]+)$/i.exec(t);
  if (!m) return undefined;
  const [, docUri, protocol, major, minor, name] = m as unknown as string[];
  const protocolUri = `${docUri}${protocol}/${major}.${minor}`;
  return {
    docUri: docUri!,
    protocol: protocol!,
    major: Number(major),
    minor: Number(minor),
    name: name!,
    protocolUri,
    type: `${protocolUri}/${name}`,
  };
}

/** The thread id of a message: `~thread.thid`, else its own `@id` (RFC 0008). */
export function threadIdOf(message: DidCommMessage): string {
  const thid = message["~thread"]?.thid;
  return typeof thid === "string" && thid.length > 0 ? thid : message["@id"];
}

/** Checks the minimum of a plaintext message: a string `@type` and `@id` of sane length. */
export function isDidCommMessage(value: unknown): value is DidCommMessage {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (typeof v["@type"] !== "string" || v["@type"].length === 0 || v["@type"].length > 512) {
    return false;
  }
  if (typeof v["@id"] !== "string" || v["@id"].length === 0) return false;
  if (v["@id"].length > MAX_MESSAGE_ID_LENGTH) return false;
  const th = v["~thread"];
  if (th !== undefined && (typeof th !== "object" || th === null || Array.isArray(th))) {
    return false;
  }
  return true;
}

/** A new message id (UUID v4, as Credo and ACA-Py use). */
export function newMessageId(): string {
  return crypto.randomUUID();
}
