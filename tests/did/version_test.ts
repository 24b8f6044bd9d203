/**
 * The one reading of the version DID parameters (`src/did/version.ts`), which did:webvh, did:plc
 * and the plug-ins share: `versionTime` is an RFC 3339 date-time with its zone, or refused.
 */
import assert from "node:assert/strict";
import { parseVersionTime, readVersion } from "../../src/did/version.ts";

Deno.test("versionTime: an RFC 3339 date-time with a zone names its instant; without a zone it is refused", () => {
  const at = (s: string) => parseVersionTime(s)?.toISOString();
  assert.equal(at("2025-01-31T12:00:00Z"), "2025-01-31T12:00:00.000Z");
  assert.equal(at("2025-01-31t12:00:00z"), "2025-01-31T12:00:00.000Z");
  assert.equal(at("2025-01-31T12:00:00.250Z"), "2025-01-31T12:00:00.250Z");
  assert.equal(at("2025-01-31T14:00:00+02:00"), "2025-01-31T12:00:00.000Z");
  assert.equal(at("2025-01-31T07:30:00-04:30"), "2025-01-31T12:00:00.000Z");
  for (
    const bad of [
      "2025-01-31T12:00:00", // no zone: the server's local time
      "2025-01-31T12:00:00.5", // no zone
      "2025-01-31T12:00Z", // no seconds
      "2025-01-31", // a date alone
      "2025-02-30T12:00:00Z", // no such day
      "yesterday",
      "",
    ]
  ) {
    assert.equal(parseVersionTime(bad), undefined, bad);
  }
});

Deno.test("readVersion: versionId as given, versionNumber a whole number from 1, refusals in words", () => {
  assert.deepEqual(readVersion(undefined), {});
  assert.deepEqual(readVersion({ versionId: "9", versionNumber: "3" }), {
    versionId: "9",
    versionNumber: 3,
  });
  assert.deepEqual(readVersion({ versionTime: "2025-01-31T12:00:00Z" }), {
    versionTime: new Date("2025-01-31T12:00:00Z"),
  });
  assert.match(readVersion({ versionTime: "2025-01-31T12:00:00" }) as string, /time zone/);
  for (const n of ["0", "-1", "1.5", "1e3", "x", ""]) {
    assert.match(readVersion({ versionNumber: n }) as string, /whole number from 1/, n);
  }
});
