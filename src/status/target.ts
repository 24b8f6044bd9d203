/**
 * What is checked of a credential: its issuer and status entries, read from what the issuer
 * signed (for an SD-JWT VC, the issuer-signed JWT's payload, never a disclosure). Pure.
 *
 * @module
 */
import type { StatusSubject, StatusTarget } from "./types.ts";
import { isObject } from "../base/mod.ts";

type Json = Record<string, unknown>;
/** The issuer-signed JWT payload of an SD-JWT (the part before the first `~`), or undefined. */
export function signedPayload(compact: string): Json | undefined {
  const jwt = compact.split("~")[0] ?? "";
  const part = jwt.split(".")[1];
  if (!part) return undefined;
  try {
    const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "="));
    const json = JSON.parse(
      new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))),
    );
    return isObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

/** The status target of a received credential. */
export function targetOf(subject: StatusSubject): StatusTarget {
  if (subject.format === "ldp_vc") {
    const vc = subject.credential;
    const issuer = typeof vc.issuer === "string"
      ? vc.issuer
      : isObject(vc.issuer) && typeof vc.issuer.id === "string"
      ? vc.issuer.id
      : "";
    const raw = vc.credentialStatus;
    const entries = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(isObject);
    return { format: "ldp_vc", issuer, entries };
  }
  const payload = signedPayload(subject.compact) ?? {};
  const issuer = typeof payload.iss === "string" ? payload.iss : "";
  if (payload.status === undefined) return { format: "dc+sd-jwt", issuer };
  const list = isObject(payload.status) ? payload.status.status_list : undefined;
  if (!isObject(list)) {
    return {
      format: "dc+sd-jwt",
      issuer,
      problem: "its status claim has no status_list (the only status mechanism checked here)",
    };
  }
  const { idx, uri } = list;
  if (typeof idx !== "number" || !Number.isInteger(idx) || idx < 0 || typeof uri !== "string") {
    return {
      format: "dc+sd-jwt",
      issuer,
      problem: "its status.status_list needs a non-negative integer idx and a uri",
    };
  }
  return { format: "dc+sd-jwt", issuer, reference: { idx, uri } };
}
