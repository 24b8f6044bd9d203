/**
 * The ACA-Py launcher itself: ACA-Py cannot listen on port 0, so its ports are reserved first; a
 * port taken by someone else in between makes that start fail, and the launcher starts it again
 * on fresh ports. Here the first port it is given is held open by the test.
 *
 * Needs `bash tests/interop/setup.sh` (ACA-Py's venv); skipped without it, failing under CI=true.
 */
import assert from "node:assert/strict";
import { acapyInterop } from "./availability.ts";
import { startAcapy } from "./acapy_peer.ts";
import { freePort } from "../support/service_process.ts";

Deno.test({
  ...acapyInterop,
  name: "interop: ACA-Py given a port that is taken is started again on fresh ports",
  fn: async () => {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const takenPort = (taken.addr as Deno.NetAddr).port;
    let first = true;
    const pickPort = () => {
      if (!first) return freePort();
      first = false;
      return takenPort;
    };
    try {
      const acapy = await startAcapy({ pickPort });
      try {
        assert.equal(acapy.attempts, 2);
        assert.notEqual(acapy.endpoint, `http://127.0.0.1:${takenPort}`);
        const status = await acapy.admin<{ label: string }>("GET", "/status");
        assert.equal(status.label, "ACA-Py Peer");
      } finally {
        await acapy.close();
      }
    } finally {
      taken.close();
    }
  },
});
