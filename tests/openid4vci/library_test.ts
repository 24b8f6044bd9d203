/**
 * Loading the OpenID4VCI libraries leaves the service's own validation messages as they were
 * (`@openid4vc/utils` replaces zod's global error map on import), and opens the libraries' own
 * https-only switch (the outbound client is the one URL policy).
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { loadOid4vcLibraries } from "../../src/openid4vci/library.ts";

const schema = z.object({ name: z.string().min(3), age: z.number() }).strict();
const messages = () =>
  schema.safeParse({ name: "x", age: "y", extra: 1 }).error!.issues.map((i) => i.message);

Deno.test("loading the OpenID4VCI libraries keeps zod's messages and opens their https switch", async () => {
  const before = messages();
  const libs = await loadOid4vcLibraries();
  assert.deepEqual(messages(), before);
  assert.equal(libs.utils.getGlobalConfig().allowInsecureUrls, true);
  assert.equal(await loadOid4vcLibraries(), libs, "loaded once");
});
