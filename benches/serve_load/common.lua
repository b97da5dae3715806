-- What the wrk scripts of benches/serve_load.sh share: numbering the threads (wrk's
-- `setup`, in the main Lua state, where `done` finds them again), a monotonic clock
-- (wrk's LuaJIT FFI, clock_gettime), and stopping a thread with the file that tells the
-- script it stopped.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } serve_load_timespec;
int clock_gettime(int clock_id, serve_load_timespec *time);
]]

local common = {}
local CLOCK_MONOTONIC = 1
local time = ffi.new("serve_load_timespec")

-- Every thread wrk made, for `done` to read their counts.
common.threads = {}

-- wrk's `setup`: numbers each thread (`thread_number` in its state) and keeps it.
function common.setup(thread)
    table.insert(common.threads, thread)
    thread:set("thread_number", #common.threads)
end

-- The file this thread creates when it stops: the prefix the script gives as the first
-- argument, then the thread's number.
function common.stop_file(args)
    return args[1] .. "." .. thread_number
end

-- Seconds on the monotonic clock.
function common.now()
    ffi.C.clock_gettime(CLOCK_MONOTONIC, time)
    return tonumber(time.tv_sec) + tonumber(time.tv_nsec) / 1e9
end

-- Stops this thread and creates its stop file.
function common.stop(stop_file)
    local file = assert(io.open(stop_file, "w"))
    file:close()
    wrk.thread:stop()
end

return common
