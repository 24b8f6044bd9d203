/**
 * Deno Deploy as it is (README "Deployment"): the current Deploy takes an app's build and runtime
 * configuration from `deno.json` (`deploy`, docs.deno.com/deploy/reference/builds), and its builds
 * and instances run Deno 2.5.0 (docs.deno.com/deploy/reference/runtime). `deploy.yml` installs
 * Deno with `denoland/setup-deno@v2` and the dependencies with `deno ci`, not through Node.js.
 */
import assert from "node:assert/strict";
import { runtimeProblem } from "../../src/boot/runtime.ts";
import { DEPLOY_DENO } from "../support/npm_deno.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("deno.json: a dynamic app whose entrypoint is src/main.ts, installed with a command Deploy's Deno has", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const deploy = config.deploy;
  assert.deepEqual(deploy.runtime, { type: "dynamic", entrypoint: "src/main.ts" });
  assert.ok((await Deno.stat(new URL(deploy.runtime.entrypoint, ROOT))).isFile);
  assert.equal(deploy.framework, undefined, "a framework preset would override the runtime");
  // `deno ci` came after 2.5; `deno install --frozen` installs deno.lock's packages on 2.5 too.
  assert.equal(deploy.install, "deno install --frozen");
  assert.equal(typeof deploy.org, "string");
  assert.equal(typeof deploy.app, "string");
  assert.equal(runtimeProblem(DEPLOY_DENO), undefined, "the start-up check accepts Deploy's Deno");
});

Deno.test("deploy.yml: Deno from denoland/setup-deno@v2 and dependencies from deno ci; no Node 20, no Deno through npx", async () => {
  const yml = await Deno.readTextFile(new URL("deploy.yml", ROOT));
  const setups = [
    ...yml.matchAll(/uses: denoland\/setup-deno@v2\n\s+with:\n\s+deno-version: v2\.9\.6/g),
  ];
  assert.equal(setups.length, 2, "both jobs install Deno 2.9.6 with setup-deno@v2");
  assert.match(yml, /run: deno ci\n/);
  assert.doesNotMatch(yml, /npx -y deno/);
  assert.doesNotMatch(yml, /node-version: 20/);
  assert.match(yml, /run: CI=true bash \.ci\/run/);
  // The denokv build the KV Connect tests use is cached under the version denokv.sh builds.
  const sh = await Deno.readTextFile(new URL("tests/kv_connect/denokv.sh", ROOT));
  const version = /^VERSION=(\S+)$/m.exec(sh)![1]!;
  assert.match(
    yml,
    new RegExp(`path: ~/\\.cache/ssi-edge\\n\\s+key: denokv-${version.replaceAll(".", "\\.")}-`),
  );
});
