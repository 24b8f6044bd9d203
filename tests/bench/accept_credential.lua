-- wrk script for tests/bench/accept_credential_bench.ts: every request accepts the next record id
-- of the file (args: ids file, bearer token, thread count); threads take ids in strides.
local ids, i, stride = {}, 0, 1
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
function init(args)
  for line in io.lines(args[1]) do ids[#ids + 1] = line end
  token = args[2]
  stride = tonumber(args[3]) or 1
  i = (tid or 0) + 1
end
function request()
  local id = ids[i] or ids[#ids] -- past the end: a record already done (409)
  i = i + stride
  return wrk.format("POST", "/credentials/accept-credential", {
    ["content-type"] = "application/json",
    ["authorization"] = "Bearer " .. token,
  }, '{"credentialRecordId":"' .. id .. '"}')
end
function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d non2xx=%d socket_errors=%d\n", summary.requests,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout))
end
