/**
 * What `deno task dev` prints once the service listens: where it runs, the dev token, and calls a
 * newcomer can paste as they are (`GET /me`, and configuring the demo org's agent at the service's
 * own DIDComm endpoint, which dev mode lets outbound calls reach).
 *
 * @module
 */

/** What the banner is made from. */
export interface DevBannerInput {
  /** The port the server really listens on (PORT=0 picks one). */
  port: number;
  /** `PUBLIC_URL` as configured (its default names `PORT`, which may be 0). */
  publicUrl: string;
  /** `PORT` as configured. */
  configuredPort: number;
  kvPath: string | undefined;
  /** The demo org and the dev token of its owner. */
  org: string;
  token: string;
  /** An API key for the configure call (at least 16 characters). */
  apiKey: string;
  /** The demo org's agent endpoint when it already has one (the configure call would be 409). */
  existingEndpoint?: string;
  /** The Deno the reader runs the tasks with (default: this one), as `npx -y deno@<version>`. */
  denoVersion?: string;
}

/** The banner's text, every command on one line so that it pastes as it is. */
export function devBanner(b: DevBannerInput): string {
  const base = `http://localhost:${b.port}`;
  // The default PUBLIC_URL names the configured port; with PORT=0 that is not where it listens.
  const publicUrl = b.publicUrl === `http://localhost:${b.configuredPort}` ? base : b.publicUrl;
  const auth = `-H "Authorization: Bearer ${b.token}"`;
  const lines = [
    "",
    `Dev mode: ${base} (KV ${b.kvPath ?? "platform"}, outbound calls may reach localhost).`,
    `A token of the demo org "${b.org}" (role owner) and the base URL, for the README's first ten minutes:`,
    `  export TOKEN=${b.token}`,
    `  export BASE=${base}`,
    `Who am I:`,
    `  curl ${auth} ${base}/me`,
  ];
  if (b.existingEndpoint === undefined) {
    const body = JSON.stringify({
      walletName: "DemoAgent",
      agentEndpoint: `${publicUrl}/didcomm`,
      apiKey: b.apiKey,
    });
    lines.push(
      `Configure the demo org's agent (its endpoint is this service's own DIDComm endpoint):`,
      `  curl -X POST ${auth} -H "content-type: application/json" -d '${body}' ${base}/orgs/${b.org}/agents/configure`,
    );
  } else {
    lines.push(
      `The demo org's agent is configured (endpoint ${b.existingEndpoint}). See it:`,
      `  curl ${auth} ${base}/orgs/${b.org}/agents`,
    );
  }
  lines.push(
    `API docs: ${base}/docs. More tokens: npx -y deno@${
      b.denoVersion ?? Deno.version.deno
    } task token --org ID --role ROLE`,
    "",
  );
  return lines.join("\n");
}
