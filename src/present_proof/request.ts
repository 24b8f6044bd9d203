/**
 * Reading a received `request-presentation` (Present Proof 2.0): its DIF Presentation Exchange
 * attachment (`dif/presentation-exchange/definitions@v1.0`: `options.challenge`, `options.domain`,
 * `presentation_definition`), or the format it uses instead. Pure; errors as values.
 *
 * @module
 */
import { findFormatAttachment } from "../didcomm/mod.ts";
import { ANONCREDS_REQUEST_FORMATS, PE_DEFINITIONS } from "./messages.ts";
import { isObject } from "../base/mod.ts";

type Json = Record<string, unknown>;
/** The decoded DIF PE request attachment. */
export interface PeRequest {
  presentation_definition: Json & { id: string; input_descriptors: Json[] };
  options: { challenge: string; domain?: string };
}

/** What a request is. */
export type RequestParse =
  | { ok: true; request: PeRequest }
  /** `unsupported`: well formed, in a format this service cannot answer (AnonCreds, …). */
  | { ok: false; kind: "unsupported"; format: string; reason: string }
  | { ok: false; kind: "malformed"; reason: string };

/** Largest presentation definition accepted (bytes of JSON). */
const MAX_DEFINITION = 32 * 1024;

/** Reads a `request-presentation` message. */
export function parseProofRequest(message: Json): RequestParse {
  const formats = message.formats;
  if (!Array.isArray(formats) || formats.length === 0 || !formats.every(isObject)) {
    return { ok: false, kind: "malformed", reason: 'the request has no "formats" list' };
  }
  const names = formats.map((f) => String(f.format));
  if (!names.includes(PE_DEFINITIONS)) {
    const format = names.join(", ");
    const anon = names.find((n) => ANONCREDS_REQUEST_FORMATS.includes(n));
    return {
      ok: false,
      kind: "unsupported",
      format,
      reason: anon
        ? `the request uses the AnonCreds format "${anon}", which this agent cannot answer; ` +
          `request W3C credentials with ${PE_DEFINITIONS} instead`
        : `the request's format "${format}" is not supported; only ${PE_DEFINITIONS} is`,
    };
  }
  const att = findFormatAttachment(message, "request_presentations~attach", PE_DEFINITIONS);
  if (!att.ok) return { ok: false, kind: "malformed", reason: att.reason };
  const value = att.value;
  if (!isObject(value)) {
    return { ok: false, kind: "malformed", reason: "the attachment is not an object" };
  }
  const pd = value.presentation_definition;
  if (!isObject(pd)) {
    return {
      ok: false,
      kind: "malformed",
      reason: "the attachment has no presentation_definition",
    };
  }
  if (typeof pd.id !== "string" || !Array.isArray(pd.input_descriptors)) {
    return {
      ok: false,
      kind: "malformed",
      reason: "the presentation_definition needs an id and input_descriptors",
    };
  }
  if (!pd.input_descriptors.every((d) => isObject(d) && typeof d.id === "string")) {
    return { ok: false, kind: "malformed", reason: "every input descriptor needs an id" };
  }
  if (JSON.stringify(pd).length > MAX_DEFINITION) {
    return {
      ok: false,
      kind: "malformed",
      reason: `the presentation_definition is larger than ${MAX_DEFINITION} bytes`,
    };
  }
  const options = isObject(value.options) ? value.options : {};
  if (typeof options.challenge !== "string" || options.challenge.length === 0) {
    return {
      ok: false,
      kind: "malformed",
      reason: "options.challenge is missing (a presentation is signed over the challenge)",
    };
  }
  if (options.domain !== undefined && typeof options.domain !== "string") {
    return { ok: false, kind: "malformed", reason: "options.domain is not a string" };
  }
  return {
    ok: true,
    request: {
      presentation_definition: pd as PeRequest["presentation_definition"],
      options: {
        challenge: options.challenge,
        ...(typeof options.domain === "string" ? { domain: options.domain } : {}),
      },
    },
  };
}
