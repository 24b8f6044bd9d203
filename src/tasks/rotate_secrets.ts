/**
 * `deno task rotate-secrets`: seals every sealed value in KV again under SECRETS_KEY.
 *
 * Run it with the service's environment, SECRETS_KEY being the new key and SECRETS_KEY_PREVIOUS
 * the old one(s) (KV_PATH as the service has it; on Deno Deploy the service does the same by
 * itself at start when SECRETS_KEY_PREVIOUS is set). Safe while the service runs. Exits 0 when
 * every value is under the new key (then remove SECRETS_KEY_PREVIOUS), 1 otherwise.
 */
import { resealables } from "../compose.ts";
import { ConfigError, parseConfig } from "../config/mod.ts";
import { rotateSecrets, SecretBox } from "../crypto/mod.ts";
import { withBusyRetry } from "../kv/mod.ts";

try {
  const config = parseConfig(Deno.env.toObject());
  if (!config.secretsKey) throw new ConfigError("SECRETS_KEY (the new key) is required.");
  // The service may be writing to the same file meanwhile.
  const kv = withBusyRetry(await Deno.openKv(config.kvPath));
  try {
    const ok = await rotateSecrets(
      kv,
      new SecretBox(config.secretsKey, config.previousSecretsKeys),
      resealables,
    );
    Deno.exitCode = ok ? 0 : 1;
  } finally {
    kv.close();
  }
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`Configuration error: ${err.message}`);
  Deno.exitCode = 1;
}
