/**
 * Fast lanes: a feature may answer some requests before the router runs, for the hottest cached
 * answers (`GET /dids/{did}` with a cached token and a cached resolution). A lane returns a
 * Response only when it can give exactly the answer its route would, request id and log line
 * included; for anything else (a miss, an unusual header, an error) it returns undefined and the
 * request goes through the router as usual. So a lane is an optimization with no behaviour of
 * its own: every test of the route holds for it too (the app's `request` goes through it).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";

/** Answers a request synchronously, or declines with undefined. */
export type FastLane = (req: Request) => Response | undefined;

const lanes = new WeakMap<OpenAPIHono<AppEnv>, FastLane>();

/** Attaches a fast lane to a feature router; `createApp` puts it in front of the router. */
export function withFastLane(
  router: OpenAPIHono<AppEnv>,
  lane: FastLane,
): OpenAPIHono<AppEnv> {
  lanes.set(router, lane);
  return router;
}

/** The lane attached to a router, if any. */
export function fastLaneOf(router: OpenAPIHono<AppEnv>): FastLane | undefined {
  return lanes.get(router);
}
