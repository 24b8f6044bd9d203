/**
 * The route shapes of records named by their id alone, outside `/orgs/{orgId}/…` (DIDComm
 * exchanges: `POST /credentials/accept-offer` with `{credentialRecordId}`, `GET /proofs/{id}`):
 * the record is looked up first and the caller must be a member of its org (any org role, or its
 * agent token); another org's record is the same 404 as no record at all ({@link visibleToMember}).
 *
 * Check order: 401 (token, attached per prefix in `app.ts`) → 400 (body/params) → 404 → what the
 * service call answers (409 for a wrong state).
 *
 * @module
 */
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { errorResponses } from "./openapi.ts";
import { visibleToMember } from "./org.ts";
import {
  declareRoute,
  type JsonResponse,
  type OperationDoc,
  operationFields,
  validated as valid,
} from "./route_doc.ts";

/** How a feature finds a record by id alone. */
export interface MemberRecordLookup<T extends { orgId: string }> {
  find(id: string): Promise<T | null | undefined>;
  /** The 404 message for a record that does not exist (or that the caller may not see). */
  missing(id: string): string;
}

/** `POST <path>` whose required JSON body names the record in `idField`. */
export interface ActSpec<B extends z.ZodObject> extends OperationDoc {
  body: B;
  idField: keyof z.infer<B> & string;
  ok: JsonResponse;
  /** Default 400, 401, 404, 409, 503. */
  errors?: number[];
}

/** `GET <path>/{id}`: one record. */
export interface ReadSpec extends OperationDoc {
  /** The `{id}` path parameter. */
  params: z.ZodObject;
  ok: JsonResponse;
  /** Default 400, 401, 404, 503. */
  errors?: number[];
}

/** The member-record route shapes of one feature's router. */
export interface MemberRecordRoutes<T extends { orgId: string }> {
  /** Declares an action: `run(orgId, id, body, found)` answers 200. */
  act<B extends z.ZodObject>(
    spec: ActSpec<B>,
    run: (orgId: string, id: string, body: z.infer<B>, found: T) => Promise<unknown>,
  ): void;
  /** Declares a read: `read(orgId, id, found)` answers 200. */
  read(spec: ReadSpec, read: (orgId: string, id: string, found: T) => Promise<unknown>): void;
}

/** Route declarations for records found by `lookup`, added to `app` under `tags`. */
export function memberRecordRoutes<T extends { orgId: string }>(
  app: OpenAPIHono<AppEnv>,
  tags: string[],
  lookup: MemberRecordLookup<T>,
): MemberRecordRoutes<T> {
  const add = declareRoute.bind(null, app);
  const doc = operationFields.bind(null, tags);
  /** The record `id` when the caller may see it; 404 otherwise (never leaks). */
  const visible = async (c: Context<AppEnv>, id: string) =>
    visibleToMember(c.var.principal, await lookup.find(id), lookup.missing(id));

  return {
    act(spec, run) {
      add(
        createRoute({
          method: "post",
          ...doc(spec),
          request: {
            body: { required: true, content: { "application/json": { schema: spec.body } } },
          },
          responses: {
            200: spec.ok,
            ...errorResponses(...(spec.errors ?? [400, 401, 404, 409, 503])),
          },
        }),
        async (c) => {
          const body = valid<z.infer<typeof spec.body>>(c, "json");
          const id = body[spec.idField] as string;
          const found = await visible(c, id);
          return c.json(await run(found.orgId, id, body, found), 200);
        },
      );
    },

    read(spec, read) {
      add(
        createRoute({
          method: "get",
          ...doc(spec),
          request: { params: spec.params },
          responses: {
            200: spec.ok,
            ...errorResponses(...(spec.errors ?? [400, 401, 404, 503])),
          },
        }),
        async (c) => {
          const { id } = valid<{ id: string }>(c, "param");
          const found = await visible(c, id);
          return c.json(await read(found.orgId, id, found), 200);
        },
      );
    },
  };
}
