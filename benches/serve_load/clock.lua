-- What the wrk scripts of benches/serve_load.sh need beyond wrk's own Lua: a monotonic
-- clock (wrk's LuaJIT FFI, clock_gettime) and a file to tell the script a thread stopped.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } serve_load_timespec;
int clock_gettime(int clock_id, serve_load_timespec *time);
]]

local clock = {}
local CLOCK_MONOTONIC = 1
local time = ffi.new("serve_load_timespec")

-- Seconds on the monotonic clock.
function clock.now()
    ffi.C.clock_gettime(CLOCK_MONOTONIC, time)
    return tonumber(time.tv_sec) + tonumber(time.tv_nsec) / 1e9
end

-- Creates the (empty) file at `path`.
function clock.mark(path)
    local file = assert(io.open(path, "w"))
    file:close()
end

return clock
