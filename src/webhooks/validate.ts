import { badRequest } from "../base/mod.ts";
import {
  checkOutboundUrl,
  type HostLookup,
  type OutboundPolicy,
  SafeFetchError,
} from "../outbound/mod.ts";

/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * 400 unless `raw` is usable as a webhook target under `policy`: absolute http(s), no user
 * info, at most 2048 characters, https when required, and every address of its host public
 * (unless private addresses are allowed; `resolveHost` finds them, default the system's DNS). The
 * message names the rule that failed.
 */
export async function validateWebhookUrl(
  raw: string,
  policy: OutboundPolicy,
  path = "notificationWebhook",
  resolveHost?: HostLookup,
): Promise<URL> {
  const fail = (message: string) => badRequest(message, [{ path, message }]);
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw fail(
      `notificationWebhook is ${raw.length} characters long; the limit is ${MAX_WEBHOOK_URL_LENGTH}.`,
    );
  }
  if (raw.trim() !== raw || raw === "") {
    throw fail("notificationWebhook must be an absolute http(s) URL without surrounding spaces.");
  }
  try {
    return await checkOutboundUrl(raw, policy, resolveHost);
  } catch (err) {
    if (err instanceof SafeFetchError) throw fail(`notificationWebhook: ${err.message}`);
    throw err;
  }
}
