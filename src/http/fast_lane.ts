/**
 * Fast lanes: a feature may answer some requests before the router runs, for its hottest routes
 * (`GET /dids/{did}` with a cached token: from the caches, or resolving a plain DID). A lane
 * returns a Response only when it can give exactly the answer its route would, log line included
 * (the one difference: the request id, which follows `finishFastAnswer` in `log.ts`); for
 * anything else (an unusual header, an error) it returns undefined and the request goes through
 * the router as usual. So a lane is an optimization with no other behaviour of its own: every
 * test of the route holds for it too (the app's `request` goes through it).
 *
 * A feature hands its lane to `createApp` beside its router (see `did/routes.ts`).
 *
 * @module
 */

/**
 * Answers a request (at once, or with a promise when it has to compute the answer), or declines
 * with undefined. A rejected promise sends the request through the router after all.
 */
export type FastLane = (req: Request) => Response | Promise<Response> | undefined;
