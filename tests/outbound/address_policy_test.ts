/**
 * The outbound address policy (strict: no OUTBOUND_ALLOW_PRIVATE): every special-purpose range of
 * the IANA IPv4 and IPv6 registries is refused, and every IPv6 form that carries an IPv4 address
 * is judged by that IPv4 — as a literal in a URL, as a name the resolver answers with, at
 * registration (checkOutboundUrl) and at connect (the safe client, which then opens no socket).
 */
import assert from "node:assert/strict";
import {
  blockedRange,
  checkOutboundUrl,
  createSafeFetch,
  SafeFetchError,
} from "../../src/outbound/mod.ts";
import { createTestContext, expectJson } from "../support/context.ts";

const STRICT = { allowPrivate: false, requireHttps: false };

/** Addresses that must be refused, one or more per range, with a word of the reason. */
const REFUSED: [address: string, why: RegExp][] = [
  // IPv4 special-purpose registry
  ["0.0.0.0", /this-network/],
  ["10.1.2.3", /private/],
  ["100.64.0.1", /CGNAT/],
  ["127.0.0.1", /loopback/],
  ["127.255.255.254", /loopback/],
  ["169.254.169.254", /metadata/],
  ["172.16.0.1", /private/],
  ["172.31.255.255", /private/],
  ["192.0.0.8", /IETF/],
  ["192.0.2.1", /documentation/],
  ["192.31.196.1", /AS112/],
  ["192.52.193.1", /AMT/],
  ["192.88.99.1", /6to4 relay/],
  ["192.168.1.1", /private/],
  ["192.175.48.1", /AS112/],
  ["198.18.0.1", /benchmarking/],
  ["198.51.100.7", /documentation/],
  ["203.0.113.9", /documentation/],
  ["224.0.0.251", /multicast/],
  ["239.255.255.250", /multicast/],
  ["240.0.0.1", /reserved/],
  ["255.255.255.255", /broadcast/],
  // IPv6 special-purpose registry
  ["::", /unspecified/],
  ["::1", /loopback/],
  ["100::1", /discard/],
  ["100:0:0:1::1", /dummy/],
  ["2001:2::1", /IETF/],
  ["2001:10::1", /IETF/],
  ["2001:db8::1", /documentation/],
  ["2620:4f:8000::1", /AS112/],
  ["3fff::1", /documentation/],
  ["5f00::1", /segment routing/],
  ["fc00::1", /unique local/],
  ["fd00:ec2::254", /unique local/],
  ["fe80::1", /link-local/],
  ["fec0::1", /site-local/],
  ["ff02::1", /multicast/],
  ["4000::1", /not global unicast/],
  // IPv6 forms carrying a refused IPv4
  ["::7f00:1", /IPv4-compatible loopback/],
  ["::a9fe:a9fe", /IPv4-compatible link-local/],
  ["::ffff:127.0.0.1", /IPv4-mapped loopback/],
  ["::ffff:10.0.0.1", /IPv4-mapped private/],
  ["::ffff:a9fe:a9fe", /IPv4-mapped link-local/],
  ["::ffff:0:7f00:1", /IPv4-translated loopback/],
  ["64:ff9b::7f00:1", /NAT64 loopback/],
  ["64:ff9b::c0a8:101", /NAT64 private/],
  ["64:ff9b:1::a9fe:a9fe", /NAT64 link-local/],
  ["2002:7f00:1::1", /6to4 loopback/],
  ["2002:c0a8:101::1", /6to4 private/],
  ["2001:0:7f00:1::1", /Teredo loopback/],
  ["2001:0:808:808::ffff:ffff", /Teredo this-network/], // client 0.0.0.0
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", /Teredo documentation/], // client 192.0.2.45
];

/** Public addresses that must stay reachable. */
const ALLOWED = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "2001:4860:4860::8888",
  "2606:4700:4700::1111",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
];

const hostOf = (a: string) => (a.includes(":") ? `[${a}]` : a);

Deno.test("every special-purpose address is refused with its range named; public ones pass", () => {
  for (const [address, why] of REFUSED) {
    const got = blockedRange(address);
    assert.ok(got, `${address} must be refused`);
    assert.match(got, why, `${address}: ${got}`);
  }
  for (const address of ALLOWED) assert.equal(blockedRange(address), undefined, address);
});

Deno.test("registration: refused as URL literals and as names resolving to them; public ones pass", async () => {
  for (const [address] of REFUSED) {
    await assert.rejects(
      checkOutboundUrl(`http://${hostOf(address)}/hook`, STRICT),
      (e: unknown) => e instanceof SafeFetchError && e.kind === "blocked_address",
      `literal ${address}`,
    );
    await assert.rejects(
      checkOutboundUrl("http://hooks.test/hook", STRICT, () => Promise.resolve([address])),
      (e: unknown) => e instanceof SafeFetchError && e.kind === "blocked_address",
      `name resolving to ${address}`,
    );
    // One refused address among public ones is enough to refuse the name.
    await assert.rejects(
      checkOutboundUrl(
        "http://hooks.test/hook",
        STRICT,
        () => Promise.resolve(["8.8.8.8", address]),
      ),
      SafeFetchError,
    );
  }
  for (const address of ALLOWED) {
    await checkOutboundUrl(`http://${hostOf(address)}/hook`, STRICT);
    await checkOutboundUrl("http://hooks.test/", STRICT, () => Promise.resolve([address]));
  }
});

Deno.test("connect: the safe client refuses literals and resolved names before opening a socket, pinned or not (Deno below 2.7)", async () => {
  for (const pin of [true, false]) {
    for (const [address] of REFUSED) {
      const safeFetch = createSafeFetch(STRICT, {
        resolveHost: () => Promise.resolve([address]),
        pin,
      });
      for (const url of [`http://${hostOf(address)}:9/`, "http://hooks.test:9/"]) {
        await assert.rejects(
          safeFetch(url, { timeoutMs: 2000 }),
          (e: unknown) => e instanceof SafeFetchError && e.kind === "blocked_address",
          `${url} pin=${pin}`,
        );
      }
    }
  }
});

Deno.test("webhook registration on a strict instance refuses http://[::127.0.0.1]/hook and the IPv6 forms of private IPv4", async () => {
  const ctx = await createTestContext({ env: { OUTBOUND_ALLOW_PRIVATE: "false" } });
  try {
    const token = await ctx.token();
    for (
      const url of [
        "http://[::127.0.0.1]/hook",
        "http://[::ffff:169.254.169.254]/hook",
        "http://[64:ff9b::a9fe:a9fe]/hook",
        "http://[2002:a00:1::]/hook",
        "http://[fd00:ec2::254]/hook",
      ]
    ) {
      const res = await ctx.call("POST", "/notification/register/webhook-endpoint", {
        token,
        body: { orgId: "org-a", notificationWebhook: url },
      });
      const body = await expectJson(res, 400);
      assert.match(body.message as string, /may not reach/, url);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("agent endpoints and webhook URLs are checked with the composition's DNS resolution", async () => {
  // The names resolve only through the injected lookup: the system's DNS would not know them.
  const answers: Record<string, string[]> = {
    "inside.example": ["10.1.2.3"],
    "meta.example": ["93.184.215.14", "169.254.169.254"],
    "public.example": ["93.184.215.14"],
  };
  const asked: string[] = [];
  const ctx = await createTestContext({
    env: { OUTBOUND_ALLOW_PRIVATE: "false" },
    build: {
      resolveHost: (host) => {
        asked.push(host);
        return Promise.resolve(answers[host] ?? []);
      },
    },
  });
  try {
    const owner = await ctx.token({ "org-a": ["owner"] });
    const agent = (agentEndpoint: string) =>
      ctx.call("POST", "/orgs/org-a/agents/configure", {
        token: owner,
        body: { walletName: "AcmeAgent", agentEndpoint, apiKey: "k".repeat(32) },
      });
    for (const host of ["inside.example", "meta.example"]) {
      const body = await expectJson(await agent(`https://${host}/didcomm`), 400);
      assert.match(body.message as string, /agentEndpoint: .*may not reach/, host);
    }
    await expectJson(await agent("https://public.example/didcomm"), 201);

    const hook = (notificationWebhook: string) =>
      ctx.call("POST", "/notification/register/webhook-endpoint", {
        token: owner,
        body: { orgId: "org-a", notificationWebhook },
      });
    const refused = await expectJson(await hook("https://inside.example/hook"), 400);
    assert.match(refused.message as string, /may not reach/);
    assert.ok((await hook("https://public.example/hook")).status < 300);
    assert.deepEqual(
      [...new Set(asked)].sort(),
      ["inside.example", "meta.example", "public.example"],
    );
  } finally {
    await ctx.close();
  }
});
