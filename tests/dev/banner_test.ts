/**
 * The dev banner (`src/dev/banner.ts`) names what a newcomer can run as printed: the task runner
 * they have (`npx -y deno@<version>`, not a `deno` on PATH) and the base URL once, as `BASE`, for
 * the README's commands. That its curl lines work as pasted: tests/ops/dev_mode_test.ts.
 */
import assert from "node:assert/strict";
import { devBanner } from "../../src/dev/mod.ts";

const input = {
  port: 8123,
  publicUrl: "http://localhost:0",
  configuredPort: 0,
  kvPath: ".data/kv.sqlite3",
  org: "demo-org",
  token: "ey.x.y",
  apiKey: "dev-0123456789abcdef",
};

Deno.test("the dev banner names npx -y deno@<version> for more tokens and exports BASE once", () => {
  const text = devBanner({ ...input, denoVersion: "2.9.6" });
  assert.match(text, /^ {2}export TOKEN=ey\.x\.y$/m);
  assert.match(text, /^ {2}export BASE=http:\/\/localhost:8123$/m);
  assert.match(text, /More tokens: npx -y deno@2\.9\.6 task token --org ID --role ROLE/);
  assert.doesNotMatch(text, /More tokens: deno task/);
  assert.match(devBanner(input), new RegExp(`npx -y deno@${Deno.version.deno} task token`));
});
