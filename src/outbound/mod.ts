/**
 * Outbound HTTP: the address policy and the one safe client every outbound call goes through.
 *
 * @module
 */
export {
  blockedRange,
  checkOutboundUrl,
  type HostLookup,
  type OutboundPolicy,
  SafeFetchError,
  type SafeFetchErrorKind,
} from "./policy.ts";
export {
  createSafeFetch,
  type SafeFetch,
  type SafeFetchInit,
  type SafeResponse,
} from "./transport.ts";
