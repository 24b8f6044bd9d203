import { badRequest } from "../errors.ts";
import { checkOutboundUrl, type OutboundPolicy, SafeFetchError } from "../outbound/mod.ts";

/** Organization ids: a letter or digit, then up to 63 letters, digits, `.`, `_` or `-`. */
export const ORG_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** 400 unless `orgId` is a well-formed organization id. */
export function validateOrgId(orgId: string, path = "orgId"): string {
  if (!ORG_ID_PATTERN.test(orgId)) {
    const shown = orgId.length > 70 ? orgId.slice(0, 67) + "..." : orgId;
    const message =
      `orgId "${shown}" is not valid: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit.`;
    throw badRequest(message, [{ path, message }]);
  }
  return orgId;
}

/**
 * 400 unless `raw` is usable as a webhook target under `policy`: absolute http(s), no user
 * info, at most 2048 characters, https when required, and every address of its host public
 * (unless private addresses are allowed). The message names the rule that failed.
 */
export async function validateWebhookUrl(
  raw: string,
  policy: OutboundPolicy,
  path = "notificationWebhook",
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
    return await checkOutboundUrl(raw, policy);
  } catch (err) {
    if (err instanceof SafeFetchError) throw fail(`notificationWebhook: ${err.message}`);
    throw err;
  }
}
