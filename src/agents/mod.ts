/**
 * Org agents: configuration (`AgentService`), the org wallets (`Wallet`), API keys and agent
 * tokens (`loadServiceSigner`), and their routes.
 *
 * @module
 */
export { agentRoutes, type AgentRoutesDeps } from "./routes.ts";
export {
  type AgentPatch,
  AgentService,
  type AgentServiceDeps,
  type ConfiguredAgent,
} from "./service.ts";
export {
  type OrgWallet,
  Wallet,
  type WalletKey,
  type WalletKeyRecord,
  walletKeyResealable,
} from "./wallet.ts";
export {
  didJwkUrl,
  p256DidKey,
  type P256Key,
  p256KeyResealable,
  type P256PublicJwk,
} from "./p256_key.ts";
export { ApiKeyIndex, pepperResealable } from "./api_key.ts";
export {
  AGENT_TOKEN_TTL_SECONDS,
  agentIssuer,
  loadServiceSigner,
  type ServiceSigner,
  signingKeyResealable,
} from "./service_key.ts";
export {
  AgentDirectory,
  type AgentRecord,
  type AgentView,
  AUTO_ACCEPT_POLICIES,
  type AutoAcceptPolicy,
  PROOF_AUTO_ACCEPT_POLICIES,
  type ProofAutoAcceptPolicy,
} from "./record.ts";
export { DIDCOMM_V1_ACCEPT } from "./peer_did.ts";
