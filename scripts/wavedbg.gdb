# wavedbg.gdb: gdb commands for kernels served by `wavedbg serve` (docs/gdb.md).
#
#   gdb -q -ex 'target remote 127.0.0.1:9000' -x scripts/wavedbg.gdb
#   (or `source scripts/wavedbg.gdb` once connected; works with gdb-multiarch too)
#
# gdb threads are waves (thread id = wave slot + 1; `waves` shows which wave is in which
# thread). The commands below act on gdb's current thread: the server follows the wave
# of every stop and every `thread N`.

# stepi moves only the current wave; continue runs every wave. (gdb accepts this only
# once connected: source this file after `target remote`, or set it yourself then.)
python
try:
    gdb.execute("set scheduler-locking step")
except gdb.error:
    print("wavedbg.gdb: not connected yet; after `target remote` run: set scheduler-locking step")
end
# The kernel is not x86 code: never try to unwind it.
set backtrace limit 1

define waves
  monitor threads
end
document waves
List gdb thread ids with the waves in them: wave id, workgroup, state, PC.
end

define lanes
  monitor info lanes
end
document lanes
Show the current wave's lanes: active or not, and the selected lane.
end

define lane
  if $argc == 1
    monitor lane $arg0
  else
    monitor info lanes
  end
end
document lane
lane N: select lane N (0-31) for lane views and the scratch window.
end

define vlanes
  if $argc == 1
    monitor print $arg0
  else
    echo usage: vlanes REGISTER (for example: vlanes v3)\n
  end
end
document vlanes
vlanes vN: show vector register vN of the current wave lane by lane (inactive lanes in parentheses).
end

define regs
  monitor info registers
end
document regs
Show the current wave's PC, EXEC and uniform registers, marking what changed.
end

define disasm
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
  monitor windows
end
document windows
Show the address windows: code, global buffers, shared memory and scratch.
Shared memory is the current wave's workgroup's; scratch is the selected lane's.
end

define xshared
  if $argc == 0
    x/8xw 0xffff800000000000
  else
    x/$arg0xw 0xffff800000000000
  end
end
document xshared
xshared [N]: the first N (default 8) words of the current wave's shared memory.
end

define xscratch
  if $argc == 0
    x/8xw 0xffff900000000000
  else
    x/$arg0xw 0xffff900000000000
  end
end
document xscratch
xscratch [N]: the first N (default 8) words of the selected lane's scratch.
end

define wavehelp
  monitor help
end
document wavehelp
List the server's monitor commands (the wavedbg command language).
end
