/**
 * The version DID parameters (DID Core "DID Parameters"), read one way for every method that
 * keeps versions (did:webvh, did:plc, the did-resolver plug-ins): `versionId` as given,
 * `versionTime` an RFC 3339 date-time with its time zone (`Z` or `±hh:mm`; a time without one
 * names no instant, and reading it as the server's local time would give each server its own
 * answer), `versionNumber` a whole number from 1. Which of them a method takes is the method's.
 *
 * @module
 */
import type { DidVersion } from "./types.ts";

/** The version parameters, read. */
export interface VersionSelection {
  versionId?: string;
  /** `versionTime`, the instant it names. */
  versionTime?: Date;
  versionNumber?: number;
}

/** RFC 3339 `date-time`: full date, `T`, time with seconds (and a fraction), a zone. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** The instant of an RFC 3339 date-time with a zone, else undefined (also for a day like 02-30). */
export function parseVersionTime(text: string): Date | undefined {
  if (!DATE_TIME.test(text)) return undefined;
  const [y, m, d] = text.slice(0, 10).split("-").map(Number) as [number, number, number];
  if (new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) return undefined;
  const t = new Date(text);
  return Number.isNaN(t.getTime()) ? undefined : t;
}

/** The version parameters read, or the sentence that refuses them (an `invalidDidUrl`). */
export function readVersion(v: DidVersion | undefined): VersionSelection | string {
  const out: VersionSelection = {};
  if (v === undefined) return out;
  if (v.versionId !== undefined) out.versionId = v.versionId;
  if (v.versionTime !== undefined) {
    const t = parseVersionTime(v.versionTime);
    if (!t) {
      return "versionTime must be an RFC 3339 date-time with its time zone, such as " +
        "2025-01-31T12:00:00Z";
    }
    out.versionTime = t;
  }
  if (v.versionNumber !== undefined) {
    const n = Number(v.versionNumber);
    if (!/^\d+$/.test(v.versionNumber) || !Number.isSafeInteger(n) || n < 1) {
      return "versionNumber must be a whole number from 1";
    }
    out.versionNumber = n;
  }
  return out;
}
