/**
 * Loading the OpenID4VP libraries leaves the service's own validation messages as they were
 * (`@openid4vc/utils` replaces zod's global error map on import). Its own file: the libraries
 * load once per test module.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { openid4vpLibs } from "../../src/openid4vp/libs.ts";

const schema = z.object({ name: z.string().min(3), age: z.number() }).strict();
const messages = () =>
  schema.safeParse({ name: "x", age: "y", extra: 1 }).error!.issues.map((i) => i.message);

Deno.test("loading the OpenID4VP libraries keeps zod's messages", async () => {
  const before = messages();
  await openid4vpLibs();
  assert.deepEqual(messages(), before);
});
