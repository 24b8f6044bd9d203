/**
 * Outbound HTTP: the address policy and the one safe client every outbound call goes through.
 *
 * @module
 */
export {
  ALLOW_PRIVATE_HINT,
  blockedRange,
  checkOutboundUrl,
  type HostLookup,
  type OutboundPolicy,
  REQUIRE_HTTPS_HINT,
  SafeFetchError,
  type SafeFetchErrorKind,
} from "./policy.ts";
export {
  canPinOutbound,
  createSafeFetch,
  PINNED_OUTBOUND_DENO,
  type SafeFetch,
  type SafeFetchInit,
  type SafeResponse,
} from "./transport.ts";
