/**
 * `POST /agent/token`: an org's agent API key → a 15-minute org-scoped JWT (role `member`).
 *
 * The key travels in `authorization` (raw, CREDEBL style, or `ApiKey <key>`) or `x-api-key`.
 * The org is found from the key alone through its keyed lookup id; a caller may also name it
 * (`?orgId=`, header `x-org-id`, or JSON body `{orgId}`), which is required only when the same key
 * is configured for several orgs. Either way the key is then verified in constant time against
 * the org's salted hash. Failures are counted per org (and, for keys matching no org, service
 * wide) and answered with 429 + `Retry-After` past the limit.
 *
 * @module
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps } from "../deps.ts";
import { errorResponses } from "../http/openapi.ts";
import { hashSecret, verifySecret } from "../crypto/secret_box.ts";
import { badRequest } from "../errors.ts";
import type { AppEnv } from "../http/env.ts";
import { zodDetails, zodMessage } from "../http/router.ts";
import { keys } from "../kv/keys.ts";
import { log } from "../log.ts";
import {
  API_KEY_MAX,
  API_KEY_MIN,
  apiKeyLookupId,
  lookupPepper,
  readApiKey,
  wrongApiKey,
} from "./api_key.ts";
import {
  ANONYMOUS,
  ANONYMOUS_LIMIT,
  assertNotThrottled,
  ORG_LIMIT,
  recordFailure,
} from "./auth_failures.ts";
import { readAgent } from "./record.ts";
import { assertOrgId, TokenBody, TokenResponse } from "./schemas.ts";
import { serviceSigner } from "./service_key.ts";

let dummyHash: Promise<string> | undefined;

/** Adds `POST /agent/token` to `app`. */
export function registerTokenRoute(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/agent/token",
      tags: ["Agents"],
      summary: "Exchange an org's agent API key for a 15-minute org-scoped token",
      description:
        "Send the key as the raw `authorization` header value (or `x-api-key`). The org is found " +
        'from the key; name it (`?orgId=`, `x-org-id` or JSON body `{"orgId": "…"}`) ' +
        "if the key is shared. Returns `{token, expiresIn}`.",
      security: [],
      responses: {
        200: { description: "Token", content: { "application/json": { schema: TokenResponse } } },
        ...errorResponses(400, 401, 429),
      },
    }),
    async (c) => {
      const apiKey = readApiKey({ get: (n) => c.req.header(n) });
      const body = await optionalBody(await c.req.text());
      const named = c.req.query("orgId") ?? c.req.header("x-org-id") ?? body.orgId;
      if (named !== undefined) assertOrgId(named);
      const now = deps.now();

      let orgId = named;
      if (orgId === undefined) {
        await assertNotThrottled(deps.kv, ANONYMOUS, ANONYMOUS_LIMIT, now);
        const found = await orgsForKey(deps, apiKey);
        if (found.length === 0) {
          await recordFailure(deps.kv, ANONYMOUS, ANONYMOUS_LIMIT, now);
          log("info", "agent token refused: key matches no organization", {});
          throw wrongApiKey();
        }
        if (found.length > 1) {
          throw badRequest(
            "This API key is configured for more than one organization; name yours with ?orgId=.",
            [{ path: "orgId", message: "Required when the API key is shared by organizations." }],
          );
        }
        orgId = found[0]!;
      }

      await assertNotThrottled(deps.kv, orgId, ORG_LIMIT, now);
      const agent = (await readAgent(deps.kv, orgId)).value;
      const plausible = apiKey.length >= API_KEY_MIN && apiKey.length <= API_KEY_MAX;
      // Without an agent the key is still hashed, so timing does not tell which orgs have one.
      const stored = agent?.apiKeyHash ?? await (dummyHash ??= hashSecret(crypto.randomUUID()));
      const ok = await verifySecret(plausible ? apiKey : "", stored) && plausible && !!agent;
      if (!ok) {
        await recordFailure(deps.kv, orgId, ORG_LIMIT, now);
        log("info", "agent token refused", { orgId });
        throw wrongApiKey();
      }
      const { token, expiresIn } = await (await serviceSigner(deps)).mintAgentToken(
        orgId,
        agent!.keyEpoch ?? "",
      );
      log("info", "agent token issued", { orgId });
      return c.json({ token, expiresIn }, 200);
    },
  );
}

/** The optional JSON body `{orgId?}`; an empty body is `{}`. */
async function optionalBody(text: string): Promise<{ orgId?: string }> {
  if (text.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest("The request body is not valid JSON.");
  }
  const parsed = await TokenBody.safeParseAsync(json);
  if (!parsed.success) {
    throw badRequest(zodMessage("json", parsed.error), zodDetails(parsed.error));
  }
  return parsed.data;
}

/** Orgs whose configured key has this key's lookup id (at most 2 are read). */
async function orgsForKey(deps: AppDeps, apiKey: string): Promise<string[]> {
  if (apiKey.length < API_KEY_MIN || apiKey.length > API_KEY_MAX) return [];
  const lookup = await apiKeyLookupId(await lookupPepper(deps), apiKey);
  const out: string[] = [];
  for await (
    const e of deps.kv.list<string>({ prefix: keys.agentByApiKeyPrefix(lookup) }, { limit: 2 })
  ) out.push(e.value);
  return out;
}
