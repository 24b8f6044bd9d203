/**
 * Fast lanes: a feature may answer some requests before the router runs, for the hottest cached
 * answers (`GET /dids/{did}` with a cached token and a cached resolution). A lane returns a
 * Response only when it can give exactly the answer its route would, log line included (the
 * request id follows `finishFastAnswer` in `log.ts`); for anything else (a miss, an unusual header, an error) it returns undefined and the
 * request goes through the router as usual. So a lane is an optimization with no behaviour of
 * its own: every test of the route holds for it too (the app's `request` goes through it).
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
