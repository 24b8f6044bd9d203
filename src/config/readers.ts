/**
 * The readers of environment values that `parseConfig` (`config.ts`) is made of: each turns one
 * variable's text into a value, or throws a {@link ConfigError} that names the variable.
 *
 * @module
 */

/** Thrown when the environment is not usable; the message names the variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * One variable's reader: its value (undefined when unset) or a ConfigError naming it. (Plain
 * functions rather than a schema library: the config is read before the server listens, and a
 * schema library is the largest part of that start-up.)
 */
export type Field<T> = (v: string | undefined) => T;

/** The text as given. */
export const str: Field<string | undefined> = (v) => v;

/** `true`/`1`/`yes` or `false`/`0`/`no` (any case); unset or empty: undefined. */
export const bool = (name: string): Field<boolean | undefined> => (v) => {
  if (v === undefined || v === "") return undefined;
  const s = v.trim().toLowerCase();
  if (["true", "1", "yes"].includes(s)) return true;
  if (["false", "0", "no"].includes(s)) return false;
  throw new ConfigError(`${name} must be "true" or "false", got "${v}"`);
};

/** The items of a comma list, trimmed, empty ones left out (unset: none). */
export function list(v: string | undefined): string[] {
  return (v ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** `text` as an absolute http(s) URL with a host, or undefined when it is not one. */
export function httpUrl(text: unknown): URL | undefined {
  if (typeof text !== "string") return undefined;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return undefined;
  }
  return (u.protocol === "http:" || u.protocol === "https:") && u.host ? u : undefined;
}

/** An absolute http(s) URL, without trailing slashes. */
export const url = (name: string): Field<string | undefined> => (v) => {
  if (v === undefined || v === "") return undefined;
  if (!httpUrl(v)) throw new ConfigError(`${name} must be an absolute http(s) URL, got "${v}"`);
  return v.replace(/\/+$/, "");
};

/** An integer from `min` to `max`. */
export const int = (name: string, min: number, max: number): Field<number | undefined> => (v) => {
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
  }
  return n;
};

// An IPv4 or IPv6 literal, or a host name (letters, digits, dots and hyphens).
const HOST_RE =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/;

/** An IP address (IPv6 with or without brackets) or a host name to listen on. */
export const host = (name: string): Field<string | undefined> => (v) => {
  if (v === undefined || v === "") return undefined;
  const h = v.trim().replace(/^\[(.*)\]$/, "$1");
  if (!HOST_RE.test(h) || h.length > 253) {
    throw new ConfigError(`${name} must be an IP address or a host name to listen on, got "${v}"`);
  }
  return h;
};

/** A comma list of http(s) URL prefixes (each with a host, so a prefix never matches any host). */
export const urlPrefixes = (name: string): Field<string[]> => (v) => {
  const prefixes = list(v);
  for (const prefix of prefixes) {
    const u = httpUrl(prefix);
    if (!u) {
      throw new ConfigError(
        `${name} must be a comma-separated list of http(s) URL prefixes such as ` +
          `"https://contexts.example.org/"; "${prefix.slice(0, 80)}" is not one`,
      );
    }
    if (u.pathname === "/" && !prefix.endsWith("/")) {
      throw new ConfigError(
        `${name}: end the prefix "${prefix}" with "/" (without it, "${prefix}.evil.example" ` +
          "would match too)",
      );
    }
  }
  return prefixes;
};

/** A comma list of web origins: scheme, host and port only, as browsers send them in `Origin`. */
export const origins = (name: string): Field<string[]> => (v) => {
  return list(v).map((given) => {
    const u = httpUrl(given);
    if (!u) {
      throw new ConfigError(
        `${name} must be a comma-separated list of web origins such as ` +
          `"https://wallet.example"; "${given.slice(0, 80)}" is not one`,
      );
    }
    if (u.origin !== given.toLowerCase().replace(/\/$/, "")) {
      throw new ConfigError(
        `${name}: "${given.slice(0, 80)}" is not an origin (scheme://host[:port], no path, ` +
          `query or user); write "${u.origin}"`,
      );
    }
    return u.origin;
  });
};
