-- wrk script for Scripts/bench_single_point.sh: one position per request.
--
-- wrk -t1 -cN -dSECONDSs -s single_point.lua URL -- KIND BASE TOKEN AUTH THREADS
--   KIND     pub      OwnTracks HTTP: POST /pub, Basic auth, X-Limit-U/-D (what waymark and ot-recorder both take)
--            osmand   OsmAnd (Traccar Client, form mode): GET /?id=TOKEN&lat=&lon=&timestamp=&...
--            traccar  Traccar Client JSON: POST / {"location":{...},"device_id":TOKEN}
--   BASE     epoch seconds of the first point; every request takes the next second, unique across
--            all threads and connections (thread i of T sends BASE+i, BASE+i+T, ...); with BENCH_STEP_MS=S,
--            the next S milliseconds instead (so a run's points can all fall on the current day)
--   TOKEN    the device token (OsmAnd id, Traccar device_id); AUTH the Authorization header for pub; both may be
--            comma-separated lists (several devices, one request each in turn)
--   THREADS  wrk's -t (the script numbers threads in setup())
-- Environment: BENCH_RATE > 0 paces the whole run to that many requests/s with delay() (wrk decides
--   whether the script has delay() when it loads it, before init() sees any argument); unset/0: as
--   fast as answered. BENCH_CHECK=1 also counts a 2xx as rejected unless waymark says it stored the point
--   (pub: no X-Waymark-Rejected header; osmand/traccar: "stored":1 in the reply).
-- done() prints one line: RESULT {"requests","non2xx","rejected","socket_errors","seconds","p50_ms",
--   "p99_ms","max_ms","wrk_cpu_s","first_bad"}.
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long sec; long nsec; } bench_timespec;
  typedef struct { long sec; long usec; } bench_timeval;
  typedef struct { bench_timeval utime; bench_timeval stime; long rest[14]; } bench_rusage;
  int clock_gettime(int clock, bench_timespec *ts);
  int getrusage(int who, bench_rusage *usage);
]]

local threads = {}
function setup(thread)
  thread:set("tidx", #threads)
  table.insert(threads, thread)
end

counter, non2xx, rejected, first_bad = 0, 0, 0, ""
local kind, base, token, nthreads, check
local pub_headers, get_headers, json_headers = {}, {}, {}

local tokens, auths, step_ms = {}, {}, 0
local function split(text)
  local list = {}
  for item in string.gmatch(text, "[^,]+") do table.insert(list, item) end
  return list
end

function init(args)
  kind, base, token, nthreads = args[1], tonumber(args[2]), args[3], tonumber(args[5])
  tokens, auths = split(args[3]), split(args[4])
  assert(#tokens == #auths and #tokens >= 1, "TOKEN and AUTH must list as many entries")
  step_ms = tonumber(os.getenv("BENCH_STEP_MS") or "0") or 0
  check = os.getenv("BENCH_CHECK") == "1"
  local host = wrk.headers["Host"]
  pub_headers = { Host = host, ["Content-Type"] = "application/json", ["X-Limit-U"] = "bench",
                  ["X-Limit-D"] = "phone", Authorization = auths[1] }
  get_headers = { Host = host }
  json_headers = { Host = host, ["Content-Type"] = "application/json" }
  assert(kind == "pub" or kind == "osmand" or kind == "traccar", "KIND must be pub, osmand or traccar")
end

function request()
  local i = tidx + nthreads * counter
  counter = counter + 1
  -- Several devices (TOKEN lists them): request by request in turn.
  local d = (counter % #tokens) + 1
  token = tokens[d]
  -- BENCH_STEP_MS > 0: points that many milliseconds apart (BASE + i ms), else a second apart.
  local ms = step_ms > 0 and (base * 1000 + i * step_ms) or ((base + i) * 1000)
  local k = counter % 1000 -- a small walk, so consecutive points differ
  local lat, lon = 46.05 + k * 0.00001, 14.5 + k * 0.00001
  if kind == "pub" then
    pub_headers.Authorization = auths[d]
    local tst = step_ms > 0 and string.format("%d.%03d", math.floor(ms / 1000), ms % 1000) or string.format("%d", math.floor(ms / 1000))
    return wrk.format("POST", "/pub", pub_headers, string.format(
      '{"_type":"location","lat":%.6f,"lon":%.6f,"tst":%s,"acc":5,"vel":12,"batt":80,"tid":"ab"}', lat, lon, tst))
  elseif kind == "osmand" then
    return wrk.format("GET", string.format(
      "/?id=%s&lat=%.6f&lon=%.6f&timestamp=%d&speed=6.5&bearing=90&altitude=300&accuracy=5&batt=80",
      token, lat, lon, step_ms > 0 and ms or math.floor(ms / 1000)), get_headers)
  end
  return wrk.format("POST", "/", json_headers, string.format(
    '{"location":{"timestamp":"%s.%03dZ","coords":{"latitude":%.6f,"longitude":%.6f,"speed":3.3,"heading":90,' ..
    '"accuracy":5,"altitude":300},"is_moving":true,"battery":{"level":0.8,"is_charging":false},' ..
    '"activity":{"type":"walking"}},"device_id":"%s"}', os.date("!%Y-%m-%dT%H:%M:%S", math.floor(ms / 1000)), ms % 1000, lat, lon, token))
end

function response(status, headers, body)
  local problem = nil
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    problem = ""
  elseif check then
    for name, value in pairs(headers) do
      if name:lower() == "x-waymark-rejected" then problem = "X-Waymark-Rejected: " .. value end
    end
    if kind ~= "pub" and not string.find(body, '"stored":1', 1, true) then problem = "" end
    if problem then rejected = rejected + 1 end
  end
  if problem and first_bad == "" then first_bad = status .. " " .. problem .. " " .. string.sub(body, 1, 400) end
end

local rate = tonumber(os.getenv("BENCH_RATE") or "0") or 0
if rate > 0 then
  -- One schedule per thread: the k-th request may leave at start + k/rate (the thread's share of the
  -- rate), on whichever connection is free; each of the N connections thus sends about rate/N per second.
  local next_at = nil
  local ts = ffi.new("bench_timespec")
  local function now_ms() ffi.C.clock_gettime(1, ts); return tonumber(ts.sec) * 1000 + tonumber(ts.nsec) / 1e6 end
  function delay()
    local interval = 1000 * nthreads / rate
    local now = now_ms()
    next_at = math.max((next_at or now) + interval, now - 1000) -- never a burst of more than 1 s of backlog
    return math.max(0, math.floor(next_at - now + 0.5))
  end
end

local function json_string(s)
  return '"' .. (s:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end)) .. '"'
end

function done(summary, latency, requests)
  local bad, rej, first = 0, 0, ""
  for _, thread in ipairs(threads) do
    bad = bad + thread:get("non2xx")
    rej = rej + thread:get("rejected")
    if first == "" then first = thread:get("first_bad") end
  end
  local usage = ffi.new("bench_rusage")
  ffi.C.getrusage(0, usage) -- RUSAGE_SELF: every wrk thread
  local cpu = tonumber(usage.utime.sec) + tonumber(usage.utime.usec) / 1e6 + tonumber(usage.stime.sec) + tonumber(usage.stime.usec) / 1e6
  local e = summary.errors
  io.write(string.format('RESULT {"requests":%d,"non2xx":%d,"rejected":%d,"socket_errors":%d,"seconds":%.6f,' ..
    '"p50_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f,"wrk_cpu_s":%.3f,"first_bad":%s}\n',
    summary.requests, bad, rej, e.connect + e.read + e.write + e.timeout, summary.duration / 1e6,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000, cpu, json_string(first)))
end
