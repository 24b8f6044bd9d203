/**
 * Another Deno than the tests' own, from the npm registry as the project's own comes
 * (`npx -y deno@<version>`): Deno 2.5.0, the version Deno Deploy runs, for the tests that run the
 * service or its outbound client on it.
 */

/** The version Deno Deploy runs (docs.deno.com/deploy/reference/runtime). */
export const DEPLOY_DENO = "2.5.0";

/** The path of an npm-installed Deno `version`, or the reason there is none. */
export async function npmDeno(version: string): Promise<{ path?: string; why?: string }> {
  try {
    const out = await new Deno.Command("npx", {
      args: ["-y", `deno@${version}`, "eval", "console.log(Deno.execPath())"],
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
