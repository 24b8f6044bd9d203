/** `deno task token --org ID --role ROLE [--role ROLE2] [--sub SUB] [--ttl SECONDS]`: mints a dev token. */
import { parseArgs } from "node:util";
import { loadDevSecrets, mintDevToken } from "./keys.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    org: { type: "string", default: "demo-org" },
    role: { type: "string", multiple: true },
    sub: { type: "string", default: "dev-user" },
    ttl: { type: "string", default: "43200" },
  },
});
const token = await mintDevToken(await loadDevSecrets(), {
  org: values.org!,
  roles: values.role?.length ? values.role : ["owner"],
  sub: values.sub,
  ttlSeconds: Number(values.ttl),
});
console.log(token);
