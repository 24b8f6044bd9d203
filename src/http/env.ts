import type { Principal } from "./auth.ts";

/** Per-request variables (c.var): only request-scoped data lives here. */
export interface AppEnv {
  Variables: {
    requestId: string;
    principal: Principal;
  };
}
