/**
 * The service starts only on a Deno whose APIs it needs: it logs the version it runs on, and on an
 * older Deno (2.6: no `lookup` option for node:http) exits 1 naming the found and the needed
 * version. The old Deno comes from the npm registry like the project's own (`npx deno@2.6.0`).
 */
import assert from "node:assert/strict";
import { MIN_DENO, runtimeProblem } from "../../src/boot/runtime.ts";
import { createIdp } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";

Deno.test("runtimeProblem names the found and the needed version below 2.7", () => {
  assert.equal(MIN_DENO, "2.7.0");
  for (const ok of ["2.7.0", "2.7.14", "2.9.6", "3.0.0"]) {
    assert.equal(runtimeProblem(ok), undefined);
  }
  for (const old of ["2.6.10", "2.5.0", "1.46.3"]) {
    assert.match(
      runtimeProblem(old)!,
      new RegExp(`Deno ${old.replaceAll(".", "\\.")} is too old.*2\\.7\\.0`),
    );
  }
  assert.match(runtimeProblem("canary")!, /needs Deno 2\.7\.0/);
});

Deno.test("the service logs its Deno version at start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "runtime_" });
  const svc = await startService(serviceEnv(await createIdp(), dir, { LOG_LEVEL: "info" }));
  try {
    assert.match(svc.output(), new RegExp(`"msg":"starting","deno":"${Deno.version.deno}"`));
  } finally {
    await svc.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The path of an npm-installed Deno 2.6.0, or the reason there is none. */
async function oldDeno(): Promise<{ path?: string; why?: string }> {
  try {
    const out = await new Deno.Command("npx", {
      args: ["-y", "deno@2.6.0", "eval", "console.log(Deno.execPath())"],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(180_000),
    }).output();
    const path = new TextDecoder().decode(out.stdout).trim().split("\n").pop();
    if (out.success && path) return { path };
    return { why: new TextDecoder().decode(out.stderr).trim().slice(0, 300) };
  } catch (err) {
    return { why: err instanceof Error ? err.message : String(err) };
  }
}

Deno.test("on Deno 2.6 the service exits 1 naming the found and the needed version", async () => {
  const old = await oldDeno();
  if (!old.path) {
    if (Deno.env.get("CI") === "true") {
      throw new Error(`Deno 2.6.0 could not be installed: ${old.why}`);
    }
    console.log(`skipped: Deno 2.6.0 could not be installed (${old.why})`);
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "runtime_old_" });
  try {
    const out = await new Deno.Command(old.path, {
      args: ["run", "--allow-all", "src/main.ts"],
      cwd: new URL("../../", import.meta.url),
      env: serviceEnv(await createIdp(), dir),
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.match(stderr, /Deno 2\.6\.0 is too old: this service needs Deno 2\.7\.0 or newer/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
