/**
 * The route shapes of an org's records under `/orgs/{orgId}/…`: create one from a JSON body, a
 * page of them (`?state=&cursor=&limit=`), one of them, and an action on one (accept, decline,
 * hang up) with an optional JSON body. Who may call them is not decided here: bearer auth and
 * `requireOrg` are attached per path prefix in `app.ts`, and the feature's service answers 404
 * for a record of another org.
 *
 * Each declaration stays a full `createRoute` in `/openapi.json`; a feature names only what
 * differs (path, operation id, texts, schemas, error codes) and the service call.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { errorResponses } from "./openapi.ts";
import { OrgParams } from "./org.ts";
import { parseLimit } from "./pagination.ts";
import {
  declareRoute,
  type JsonResponse,
  type OperationDoc,
  operationFields,
  validated as valid,
} from "./route_doc.ts";

/** The `?state=` of a list query (never for a list without states). */
type StateOf<Q> = Q extends { state?: infer S } ? S : never;

/** What a list's service call gets: the validated query, `limit` parsed (default 50). */
export type ListOptions<Q> = { state?: StateOf<Q>; cursor?: string; limit: number };

/** `POST /orgs/{orgId}/…`: a new record from a required JSON body (201). */
export interface CreateSpec<B extends z.ZodType> extends OperationDoc {
  body: B;
  created: JsonResponse;
  errors: number[];
}

/** `GET /orgs/{orgId}/…`: a page of the org's records (`?limit=&cursor=`, maybe `?state=`). */
export interface ListSpec<Q extends z.ZodObject> extends OperationDoc {
  query: Q;
  page: JsonResponse;
  /** Default 400, 401, 403, 503. */
  errors?: number[];
}

/** `GET /orgs/{orgId}/…/{id}` (one record) or `POST …/{id}/<action>` (an action on it). */
export interface RecordSpec<B extends z.ZodType = z.ZodType> extends OperationDoc {
  method: "get" | "post";
  /** `{orgId, id}` path parameters. */
  params: z.ZodObject;
  ok: JsonResponse;
  errors: number[];
  /** An optional JSON body: the service call gets `{}` when the request carries none. */
  body?: B;
}

/** The org-record route shapes of one feature's router. */
export interface OrgRecordRoutes {
  /** Declares a create route: `create(orgId, body)` answers 201. */
  create<B extends z.ZodType>(
    spec: CreateSpec<B>,
    create: (orgId: string, body: z.infer<B>) => Promise<unknown>,
  ): void;
  /** Declares a list route: `list(orgId, {state, cursor, limit})` answers 200. */
  list<Q extends z.ZodObject>(
    spec: ListSpec<Q>,
    list: (orgId: string, query: ListOptions<z.infer<Q>>) => Promise<unknown>,
  ): void;
  /** Declares a read or an action on one record: `run(orgId, id, body)` answers 200. */
  record<B extends z.ZodType>(
    spec: RecordSpec<B>,
    run: (orgId: string, id: string, body: Partial<z.infer<B>>) => Promise<unknown>,
  ): void;
}

const jsonBody = (schema: z.ZodType, required: boolean) => ({
  required,
  content: { "application/json": { schema } },
});

/** Route declarations for records of the org in the path, added to `app` under `tags`. */
export function orgRecordRoutes(app: OpenAPIHono<AppEnv>, tags: string[]): OrgRecordRoutes {
  const add = declareRoute.bind(null, app);
  const doc = operationFields.bind(null, tags);

  return {
    create(spec, create) {
      add(
        createRoute({
          method: "post",
          ...doc(spec),
          request: { params: OrgParams, body: jsonBody(spec.body, true) },
          responses: { 201: spec.created, ...errorResponses(...spec.errors) },
        }),
        async (c) => {
          const { orgId } = valid<{ orgId: string }>(c, "param");
          return c.json(await create(orgId, valid(c, "json")), 201);
        },
      );
    },

    list(spec, list) {
      add(
        createRoute({
          method: "get",
          ...doc(spec),
          request: { params: OrgParams, query: spec.query },
          responses: {
            200: spec.page,
            ...errorResponses(...(spec.errors ?? [400, 401, 403, 503])),
          },
        }),
        async (c) => {
          const { orgId } = valid<{ orgId: string }>(c, "param");
          type Query = {
            state?: StateOf<z.infer<typeof spec.query>>;
            limit?: string;
            cursor?: string;
          };
          const { state, limit, cursor } = valid<Query>(c, "query");
          return c.json(await list(orgId, { state, cursor, limit: parseLimit(limit) }), 200);
        },
      );
    },

    record(spec, run) {
      add(
        createRoute({
          method: spec.method,
          ...doc(spec),
          request: {
            params: spec.params,
            ...(spec.body === undefined ? {} : { body: jsonBody(spec.body, false) }),
          },
          responses: { 200: spec.ok, ...errorResponses(...spec.errors) },
        }),
        async (c) => {
          const { orgId, id } = valid<{ orgId: string; id: string }>(c, "param");
          type Body = Partial<z.infer<NonNullable<typeof spec.body>>>;
          const body: Body = spec.body === undefined
            ? {}
            : valid<Body | undefined>(c, "json") ?? {};
          return c.json(await run(orgId, id, body), 200);
        },
      );
    },
  };
}
