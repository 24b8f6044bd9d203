-- wrk script for tests/bench/memory_wrk.sh: GET /dids/<did> over the DIDs of a
-- file (one per line). args: file, thread count, passes (default 1). Threads take DIDs in strides,
-- so with `passes` 1 every DID is requested exactly once; a thread stops after its last DID.
local dids, i, stride, last = {}, 0, 1, 0
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
function init(args)
  for line in io.lines(args[1]) do dids[#dids + 1] = line end
  stride = tonumber(args[2]) or 1
  local passes = tonumber(args[3]) or 1
  i = (tid or 0) + 1
  last = #dids * passes
end
function request()
  if i > last then
    wrk.thread:stop()
    i = last -- a request must still be returned; it is not sent once the thread stops
  end
  local did = dids[((i - 1) % #dids) + 1]
  i = i + stride
  return wrk.format("GET", "/dids/" .. did)
end
function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d non2xx=%d socket_errors=%d duration_us=%d\n",
    summary.requests, summary.errors.status, summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout, summary.duration))
end
