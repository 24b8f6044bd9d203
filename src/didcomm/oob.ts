/**
 * Received invitations: out-of-band 1.1 / 1.0 (Aries RFC 0434) and legacy Connections 1.0
 * invitations (RFC 0160), from a URL (`?oob=`, `?c_i=`) or as JSON. Picks the handshake protocol
 * and the service to answer on.
 *
 * @module
 */
import { base64urlnopad } from "@scure/base";
import { AppError, badRequest, isObject } from "../base/mod.ts";
import { type SafeFetch, SafeFetchError, type SafeResponse } from "../outbound/mod.ts";
import type { DidCommTarget } from "./connections/record.ts";
import { type HandshakeProtocol, normalizeType, parseMessageType, Protocols } from "./messages.ts";
import { type DidcommResolver, DidUnusableError, resolveTarget } from "./resolve.ts";
import { toVerkey } from "../crypto/mod.ts";

/** What we need of a received invitation. */
export interface ParsedInvitation {
  /** The invitation `@id` (the handshake's parent thread). */
  id: string;
  label: string | null;
  /** The handshake we will use. */
  protocol: HandshakeProtocol;
  /** Where to send the request; its recipient keys are the invitation keys. */
  target: DidCommTarget;
}

const MAX_INVITATION_CHARS = 64 * 1024;

/** Decodes the invitation JSON carried in an invitation URL (`oob` or `c_i` parameter). */
export function invitationFromUrl(invitationUrl: string): Record<string, unknown> {
  let url: URL;
  try {
    url = new URL(invitationUrl);
  } catch {
    throw badRequest("invitationUrl is not an absolute URL.", [
      { path: "invitationUrl", message: "Must be an absolute URL with an oob or c_i parameter." },
    ]);
  }
  const encoded = url.searchParams.get("oob") ?? url.searchParams.get("c_i");
  if (!encoded) {
    throw badRequest(
      "invitationUrl has no oob or c_i parameter.",
      [{ path: "invitationUrl", message: "Needs an oob= or c_i= query parameter." }],
    );
  }
  let json: unknown;
  try {
    const norm = encoded.trim().replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");
    json = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(base64urlnopad.decode(norm)),
    );
  } catch {
    throw badRequest("The invitation in invitationUrl is not base64url-encoded JSON.", [
      { path: "invitationUrl", message: "The oob/c_i parameter must be base64url JSON." },
    ]);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw badRequest("The invitation in invitationUrl is not a JSON object.");
  }
  return json as Record<string, unknown>;
}

/** True when the URL carries its invitation (`oob` or `c_i` parameter). */
function carriesInvitation(raw: string): boolean {
  try {
    const u = new URL(raw);
    return u.searchParams.has("oob") || u.searchParams.has("c_i");
  } catch {
    return false;
  }
}

/**
 * The invitation of an invitation URL: decoded from its `oob`/`c_i` parameter, or, for a short
 * link, fetched once through the safe client (`Accept: application/json`): a JSON answer is the
 * invitation; a redirect is read for its `location` (which must carry `oob`/`c_i`) and not
 * followed. 400 for a link that gives no invitation (or whose host name does not resolve), 502
 * when its host cannot be reached.
 */
export async function invitationFromLink(
  safeFetch: SafeFetch,
  invitationUrl: string,
): Promise<Record<string, unknown>> {
  if (carriesInvitation(invitationUrl)) return invitationFromUrl(invitationUrl);
  const shortLink = (message: string) => badRequest(message, [{ path: "invitationUrl", message }]);
  let res: SafeResponse;
  try {
    res = await safeFetch(invitationUrl, {
      headers: { accept: "application/json" },
      timeoutMs: 5_000,
      maxBytes: MAX_INVITATION_CHARS,
      returnRedirects: true,
    });
  } catch (err) {
    if (!(err instanceof SafeFetchError)) throw err;
    if (["timeout", "network", "too_large"].includes(err.kind)) {
      throw new AppError(
        "bad_gateway",
        502,
        `The short invitation link could not be read: ${err.message}`,
      );
    }
    throw shortLink(`invitationUrl cannot be fetched: ${err.message}`);
  }
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get("location");
    const target = location ? new URL(location, invitationUrl).href : "";
    if (!carriesInvitation(target)) {
      throw shortLink(
        `The short invitation link redirects (${res.status}) to a URL without oob or c_i.`,
      );
    }
    return invitationFromUrl(target);
  }
  if (res.status !== 200) {
    throw shortLink(`The short invitation link answered HTTP ${res.status}, not an invitation.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(res.body));
  } catch {
    throw shortLink("The short invitation link did not answer with JSON.");
  }
  if (!isObject(json)) throw shortLink("The short invitation link did not answer a JSON object.");
  return json;
}

function invalid(message: string, path = "invitation"): never {
  throw badRequest(message, [{ path, message }]);
}

/** Reads a key list (did:key or base58) as base58 verkeys; 400 naming the field otherwise. */
function verkeys(value: unknown, field: string, required: boolean): string[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value) || (required && value.length === 0)) {
    invalid(`The invitation's ${field} must be a non-empty array of keys.`, `invitation.${field}`);
  }
  return value.map((k) => {
    try {
      if (typeof k !== "string") throw new Error();
      return toVerkey(k);
    } catch {
      return invalid(
        `The invitation's ${field} has an entry that is not an Ed25519 did:key or base58 verkey.`,
        `invitation.${field}`,
      );
    }
  });
}

function httpEndpoint(value: unknown, field: string): string {
  if (typeof value !== "string" || !/^https?:\/\/[^\s]+$/i.test(value)) {
    invalid(`The invitation's ${field} must be an http(s) URL.`, `invitation.${field}`);
  }
  return value;
}

async function didTarget(resolver: DidcommResolver, did: string): Promise<DidCommTarget> {
  try {
    return await resolveTarget(resolver, did);
  } catch (err) {
    if (err instanceof DidUnusableError) invalid(`The invitation's service DID: ${err.message}`);
    throw err;
  }
}

/** Chooses our handshake from `handshake_protocols`, in the inviter's order of preference. */
function chooseHandshake(list: unknown): HandshakeProtocol {
  if (!Array.isArray(list) || list.length === 0) {
    invalid(
      "The invitation has no handshake_protocols; connectionless invitations are not supported.",
      "invitation.handshake_protocols",
    );
  }
  for (const p of list) {
    if (typeof p !== "string") continue;
    const t = parseMessageType(normalizeType(p) + "/x");
    if (!t || t.docUri !== "https://didcomm.org/" || t.major !== 1) continue;
    if (t.protocol === "didexchange") return Protocols.didExchange;
    if (t.protocol === "connections") return Protocols.connections;
  }
  return invalid(
    `None of the invitation's handshake_protocols is supported (${Protocols.didExchange}, ${Protocols.connections}).`,
    "invitation.handshake_protocols",
  );
}

/** Validates an invitation object and picks the handshake and the service. 400 when unusable. */
export async function parseInvitation(
  resolver: DidcommResolver,
  inv: Record<string, unknown>,
): Promise<ParsedInvitation> {
  if (JSON.stringify(inv).length > MAX_INVITATION_CHARS) invalid("The invitation is too large.");
  const type = typeof inv["@type"] === "string" ? normalizeType(inv["@type"]) : "";
  const parsed = parseMessageType(type);
  const id = inv["@id"];
  if (typeof id !== "string" || id.length === 0 || id.length > 255) {
    invalid("The invitation has no valid @id.", "invitation.@id");
  }
  const label = typeof inv.label === "string" ? inv.label.slice(0, 256) : null;
  if (parsed?.protocol === "out-of-band" && parsed.major === 1 && parsed.name === "invitation") {
    const protocol = chooseHandshake(inv.handshake_protocols);
    const services = inv.services;
    if (!Array.isArray(services) || services.length === 0) {
      invalid("The invitation has no services.", "invitation.services");
    }
    let lastError: unknown;
    for (const s of services) {
      try {
        if (typeof s === "string") {
          return { id, label, protocol, target: await didTarget(resolver, s) };
        }
        if (!isObject(s)) invalid("An invitation service is neither a DID nor an object.");
        return {
          id,
          label,
          protocol,
          target: {
            recipientKeys: verkeys(s.recipientKeys, "services[].recipientKeys", true),
            routingKeys: verkeys(s.routingKeys, "services[].routingKeys", false),
            endpoint: httpEndpoint(s.serviceEndpoint, "services[].serviceEndpoint"),
          },
        };
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  }
  if (parsed?.protocol === "connections" && parsed.major === 1 && parsed.name === "invitation") {
    const protocol = Protocols.connections;
    if (typeof inv.did === "string") {
      return { id, label, protocol, target: await didTarget(resolver, inv.did) };
    }
    return {
      id,
      label,
      protocol,
      target: {
        recipientKeys: verkeys(inv.recipientKeys, "recipientKeys", true),
        routingKeys: verkeys(inv.routingKeys, "routingKeys", false),
        endpoint: httpEndpoint(inv.serviceEndpoint, "serviceEndpoint"),
      },
    };
  }
  return invalid(
    `The invitation type "${
      type.slice(0, 100)
    }" is not supported; send an out-of-band 1.1 or a Connections 1.0 invitation.`,
    "invitation.@type",
  );
}
