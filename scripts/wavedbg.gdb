# wavedbg.gdb: gdb commands for kernels served by `wavedbg serve` (docs/gdb.md).
#
#   gdb -q -ex 'target remote 127.0.0.1:9000' -x scripts/wavedbg.gdb
#   (or `source scripts/wavedbg.gdb` once connected; works with gdb-multiarch too)
#
# gdb threads are waves (thread id = wave slot + 1; `waves` shows which wave is in which
# thread). The commands below act on gdb's current thread: each first tells the server
# which thread that is (gdb switches threads without telling it, e.g. in `thread apply`).
#
# Memory addresses name their workgroup, wave and lane themselves (docs/gdb.md, "Address
# windows"): shared memory of workgroup W is at 0x8000000000000000 + (W << 20), the
# scratch of lane L of wave V at 0xc000000000000000 + (V << 21) + (L << 16). The
# convenience functions $_shared(OFFSET) and $_scratch(OFFSET[, LANE]) compute them for
# the current thread's workgroup and wave (LANE defaults to the one `lane N` selected):
#
#   p/x $_shared(8)                           the address of shared word 2 of this workgroup
#   watch -l *(unsigned int *) $_shared(8)    watch it (-l: the address, computed once)
#   x/4xw $_scratch(0, 5)                     lane 5's scratch of this wave

# stepi moves only the current wave; continue runs every wave. (gdb accepts this only
# once connected: source this file after `target remote`, or set it yourself then.)
python
try:
    gdb.execute("set scheduler-locking step")
except gdb.error:
    print("wavedbg.gdb: not connected yet; after `target remote` run: set scheduler-locking step")

import re as _wavedbg_re

_WAVEDBG_SHARED = 0x8000000000000000
_WAVEDBG_SCRATCH = 0xC000000000000000


def _wavedbg_thread():
    """The current thread's wave id and workgroup, from the server's thread text."""
    t = gdb.selected_thread()
    if t is None:
        raise gdb.GdbError("no thread (is the kernel running?)")
    m = _wavedbg_re.search(r"wave (\d+) wg (\d+)", t.details or "")
    if m is None:
        raise gdb.GdbError("thread %d is not a wave of wavedbg serve" % t.num)
    return int(m.group(1)), int(m.group(2))


def _wavedbg_sync():
    """Selects gdb's current thread in the server, for the monitor commands that follow."""
    t = gdb.selected_thread()
    if t is not None:
        gdb.execute("thread %d" % t.num, to_string=True)


def _wavedbg_lane():
    try:
        return int(gdb.parse_and_eval("$_wavedbg_lane"))
    except (gdb.error, ValueError):
        return 0


class _WavedbgShared(gdb.Function):
    """$_shared(OFFSET): the address of OFFSET in the current thread's workgroup's shared memory."""

    def __init__(self):
        super().__init__("_shared")

    def invoke(self, offset=0):
        _, wg = _wavedbg_thread()
        return gdb.Value(_WAVEDBG_SHARED + (wg << 20) + int(offset)).cast(
            gdb.lookup_type("unsigned long"))


class _WavedbgScratch(gdb.Function):
    """$_scratch(OFFSET[, LANE]): the address of OFFSET in a lane's scratch of the current thread's wave."""

    def __init__(self):
        super().__init__("_scratch")

    def invoke(self, offset=0, lane=None):
        wave, _ = _wavedbg_thread()
        lane = _wavedbg_lane() if lane is None else int(lane)
        if not 0 <= lane < 32:
            raise gdb.GdbError("lane %d out of range (0-31)" % lane)
        return gdb.Value(_WAVEDBG_SCRATCH + (wave << 21) + (lane << 16) + int(offset)).cast(
            gdb.lookup_type("unsigned long"))


_WavedbgShared()
_WavedbgScratch()
end
# The kernel is not x86 code: never try to unwind it.
set backtrace limit 1
set $_wavedbg_lane = 0

define waves
  monitor threads
end
document waves
List gdb thread ids with the waves in them: wave id, workgroup, state, PC.
end

define lanes
  python _wavedbg_sync()
  monitor info lanes
end
document lanes
Show the current wave's lanes: active or not, and the selected lane.
end

define lane
  python _wavedbg_sync()
  if $argc == 1
    monitor lane $arg0
    set $_wavedbg_lane = $arg0
  else
    monitor info lanes
  end
end
document lane
lane N: select lane N (0-31) for lane views and for xscratch and $_scratch.
end

define vlanes
  if $argc == 1
    python _wavedbg_sync()
    monitor print $arg0
  else
    echo usage: vlanes REGISTER (for example: vlanes v3)\n
  end
end
document vlanes
vlanes vN: show vector register vN of the current wave lane by lane (inactive lanes in parentheses).
end

define regs
  python _wavedbg_sync()
  monitor info registers
end
document regs
Show the current wave's PC, EXEC and uniform registers, marking what changed.
end

define disasm
  python _wavedbg_sync()
  if $argc == 0
    monitor disassemble
  else
    monitor disassemble $arg0
  end
end
document disasm
disasm [LOCATION]: the kernel's disassembly at the current wave's PC (or LOCATION).
LOCATION is a label, label+OFFSET or address. Use it instead of x/i, which decodes the
bytes as x86.
end

define why
  monitor why
end
document why
Describe the last stop as the engine saw it (fault text, watchpoint lanes, deadlock).
The fault's text, the wave and lanes that touched a watched range with the old and new
values, or the waves of a deadlock.
end

define windows
  python _wavedbg_sync()
  monitor windows
end
document windows
Show the address windows: code, global buffers, and the shared and scratch windows of
the current thread's workgroup and wave.
end

define xshared
  if $argc == 0
    x/8xw $_shared(0)
  else
    eval "x/%dxw $_shared(0)", $arg0
  end
end
document xshared
xshared [N]: the first N (default 8) words of the current thread's workgroup's shared memory.
end

define xscratch
  if $argc == 0
    x/8xw $_scratch(0)
  end
  if $argc == 1
    eval "x/%dxw $_scratch(0)", $arg0
  end
  if $argc == 2
    eval "x/%dxw $_scratch(0, %d)", $arg0, $arg1
  end
end
document xscratch
xscratch [N [LANE]]: the first N (default 8) words of a lane's scratch (default: the lane
selected with `lane N`) of the current thread's wave.
end

define wavehelp
  monitor help
end
document wavehelp
List the server's monitor commands (the wavedbg command language).
end
