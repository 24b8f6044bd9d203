import type { Principal } from "./auth.ts";

/** Per-request variables (c.var): only request-scoped data lives here. */
export interface AppEnv {
  Variables: {
    requestId: string;
    principal: Principal;
    /** The org the request acts on, once a route has checked access to it (the access log's). */
    orgId: string;
  };
}
