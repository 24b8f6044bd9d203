/**
 * Request and response schemas of the agent routes (zod, shown in `GET /openapi.json`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { REQUIRE_HTTPS_HINT } from "../outbound/mod.ts";
import { API_KEY_MAX, API_KEY_MIN } from "./api_key.ts";
import { AUTO_ACCEPT_POLICIES, PROOF_AUTO_ACCEPT_POLICIES } from "./record.ts";
import { clip } from "../base/mod.ts";

/** `agentEndpoint`: absolute http(s) URL, ≤ 2048 characters, no user info, https when required. */
export function endpointSchema(requireHttps: boolean) {
  return z.string().max(2048, "agentEndpoint must be at most 2048 characters long.").superRefine(
    (v, ctx) => {
      let u: URL;
      try {
        if (v !== v.trim()) throw new Error("whitespace");
        u = new URL(v);
      } catch {
        ctx.addIssue({ code: "custom", message: `"${clip(v, 70)}" is not an absolute URL.` });
        return;
      }
      if (u.protocol !== "http:" && u.protocol !== "https:") {
        ctx.addIssue({ code: "custom", message: `Only http and https URLs are allowed.` });
      } else if (u.username || u.password) {
        ctx.addIssue({
          code: "custom",
          message: "URLs with user info (user:pass@) are not allowed.",
        });
      } else if (requireHttps && u.protocol !== "https:") {
        ctx.addIssue({
          code: "custom",
          message: `agentEndpoint must use https ${REQUIRE_HTTPS_HINT}.`,
        });
      }
    },
  ).openapi({ example: "https://agent.example.com/didcomm" });
}

const apiKey = z.string()
  .min(API_KEY_MIN, `apiKey must be at least ${API_KEY_MIN} characters long.`)
  .max(API_KEY_MAX, `apiKey must be at most ${API_KEY_MAX} characters long.`)
  .openapi({ description: "Stored only as a salted hash; exchanged at POST /agent/token." });

/** Body of `POST /orgs/{orgId}/agents/configure`. */
export function configureBody(requireHttps: boolean) {
  return z.object({
    walletName: z.string().regex(
      /^[A-Za-z0-9]{2,25}$/,
      "walletName must be 2 to 25 letters and digits.",
    ).openapi({ example: "AcmeAgent" }),
    agentEndpoint: endpointSchema(requireHttps),
    apiKey,
  }).strict().openapi("AgentConfigureRequest");
}

/** Body of `PATCH /orgs/{orgId}/agents`: at least one field. */
export function patchBody(requireHttps: boolean) {
  return z.object({
    agentEndpoint: endpointSchema(requireHttps).optional(),
    apiKey: apiKey.optional(),
    autoAcceptCredentials: z.enum(AUTO_ACCEPT_POLICIES).optional(),
    autoAcceptProofs: z.enum(PROOF_AUTO_ACCEPT_POLICIES).optional().openapi({
      description: "always: a proof request that the org's credentials satisfy is answered at " +
        "once (the newest match of each descriptor needed); never (default): a person accepts.",
    }),
  }).strict().refine((b) => Object.keys(b).length > 0, {
    message: "Give at least one of agentEndpoint, apiKey, autoAcceptCredentials, autoAcceptProofs.",
  }).openapi("AgentPatchRequest");
}

/** `data` of the configure envelope. */
export const ConfiguredAgent = z.object({
  id: z.string(),
  orgId: z.string(),
  walletName: z.string(),
  agentEndpoint: z.string(),
  did: z.string(),
  createdAt: z.string(),
}).openapi("ConfiguredAgent");

/** The configure success envelope. */
export const ConfigureResponse = z.object({
  statusCode: z.literal(201),
  success: z.literal(true),
  message: z.string(),
  data: ConfiguredAgent,
}).openapi("AgentConfigureResponse");

/** `GET /orgs/{orgId}/agents`: never the key. */
export const AgentSchema = z.object({
  id: z.string(),
  orgId: z.string(),
  walletName: z.string(),
  agentEndpoint: z.string(),
  did: z.string(),
  verkey: z.string(),
  autoAcceptCredentials: z.enum(AUTO_ACCEPT_POLICIES),
  autoAcceptProofs: z.enum(PROOF_AUTO_ACCEPT_POLICIES),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Agent");

/** Optional body of `POST /agent/token`. */
export const TokenBody = z.object({
  orgId: z.string().optional().openapi({
    description: "Optional: the org whose key this is (otherwise found from the key).",
  }),
}).strict().openapi("AgentTokenRequest");

/** `POST /agent/token` response. */
export const TokenResponse = z.object({
  token: z.string(),
  expiresIn: z.number().openapi({ description: "Seconds until the token expires (900)." }),
}).openapi("AgentTokenResponse");
