-- wrk script for bench/disk/disk_hits.py. Configured by environment:
--   DISK_PATH    a fixed path (the hot URL of the contention workload), or
--   DISK_PREFIX  with DISK_COUNT N: a uniform-random URL among PREFIX00000.bin .. PREFIX(N-1).bin
-- Prints one RESULT line that disk_hits.py parses (the shared harness's format).
local prefix = os.getenv("DISK_PREFIX") or ""
local count = tonumber(os.getenv("DISK_COUNT") or "0")
wrk.path = os.getenv("DISK_PATH") or "/"

if count > 0 then
  init = function(args)
    -- One seed per thread and per run: the table address differs between threads.
    math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
  end
  request = function()
    return wrk.format("GET", string.format("%s%05d.bin", prefix, math.random(0, count - 1)))
  end
end

done = function(s, lat, req)
  local e = s.errors
  io.write(string.format(
    "RESULT rps=%.1f p50_us=%d p99_us=%d requests=%d errors=%d non2xx=%d\n",
    s.requests / (s.duration / 1e6), lat:percentile(50), lat:percentile(99), s.requests,
    e.connect + e.read + e.write + e.timeout, e.status))
end
