/**
 * The npm packages only tests use, and the one way tests load them.
 *
 * Why not `deno.json` imports: before any task runs, `deno task` installs every npm package of the
 * lockfile it reads (`deno.lock`), so a test-only package in `deno.lock` is installed by the first
 * `deno task dev` too (puppeteer-core and its driver protocols are 22 MB). So `deno.json` and
 * `deno.lock` hold what the service needs, and these packages live in `tests/deno.lock` (the same
 * entries plus these), which `deno task test` uses (`--lock=tests/deno.lock`).
 *
 * Why a run-time import of a non-literal specifier: `deno check src/ tests/` (with `deno.lock`)
 * resolves every static import, type imports too, and would write these packages into
 * `deno.lock`. It cannot resolve a specifier held in a variable, so the tests that use them
 * import them here, at run time, under `deno task test`; their types are written beside the test
 * that needs them (`tests/web/puppeteer.ts`).
 */

/** Every test-only package and the exact version the tests run (pinned in `tests/deno.lock`). */
export const TEST_DEPS = {
  "puppeteer-core": "npm:puppeteer-core@25.16.0",
  "@apidevtools/swagger-parser": "npm:@apidevtools/swagger-parser@13.1.0",
} as const;

/** One of {@link TEST_DEPS}. */
export type TestDep = keyof typeof TEST_DEPS;

/** The variable `deno task test` sets to the lockfile it passes (`--lock`). */
export const TEST_LOCK_ENV = "TEST_LOCKFILE";

/**
 * The module of a test-only package. Outside `deno task test` (a plain `deno test` uses
 * `deno.lock`, which would gain the package) it throws, saying how to run the test instead.
 */
export async function importTestDep(name: TestDep): Promise<unknown> {
  if (Deno.env.get(TEST_LOCK_ENV) !== "tests/deno.lock") {
    throw new Error(
      `${name} is a test-only package, pinned in tests/deno.lock and kept out of deno.lock: ` +
        "run this test with `deno task test <file>` (it passes --lock=tests/deno.lock and sets " +
        `${TEST_LOCK_ENV}).`,
    );
  }
  const specifier: string = TEST_DEPS[name];
  return await import(specifier);
}
