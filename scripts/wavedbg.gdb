# wavedbg.gdb: gdb commands for kernels served by `wavedbg serve` (docs/gdb.md).
#
#   gdb -q -ex 'target remote 127.0.0.1:9000' -x scripts/wavedbg.gdb
#   (or `source scripts/wavedbg.gdb` once connected; works with gdb-multiarch too)
#
# gdb threads are waves: a thread's id is its global wave id + 1 for the whole launch
# (`info threads` says "wave N, workgroup W, wave_in_wg I, STATE"). `wave N` switches to
# wave N's thread (or `thread find wave N,` names it). The registers $wave, $workgroup and
# $wave_in_wg give the current wave's ids, and $lane the selected lane: `lane N` selects
# it, `info lanes` shows the lanes (A active, I inactive) and `lane apply all CMD` runs a
# command for each. The selected lane's value of v3 is $v3[$lane], so
#
#   break next_word if $v3[$lane] == 5
#
# stops where the selected lane of the wave that gets there has 5 in v3. `info registers`
# is replaced: gdb's own would print all 128 vector registers (`info registers vector`
# shows them, `info all-registers` everything).
# monitor commands (and the commands below that use them) act on gdb's current thread:
# hook-monitor first tells the server which thread that is (gdb switches threads without
# telling it, e.g. in `thread apply`).
#
# Memory addresses name their workgroup, wave and lane themselves (docs/gdb.md, "Address
# windows"): shared memory of workgroup W is at 0x8000000000000000 + (W << 20), the
# scratch of lane L of wave V at 0xc000000000000000 + (V << 21) + (L << 16). The
# convenience functions $_shared(OFFSET) and $_scratch(OFFSET[, LANE]) compute them for
# the current thread's workgroup and wave (LANE defaults to $lane):
#
#   p/x $_shared(8)                           the address of shared word 2 of this workgroup
#   watch -l *(unsigned int *) $_shared(8)    watch it (-l: the address, computed once)
#   x/4xw $_scratch(0, 5)                     lane 5's scratch of this wave
#
# With the kernel's symbol file loaded (`gdb KERNEL.elf`, docs/gdb.md "Symbol file") the
# windows are variables, and these need no helper:
#
#   p __shared[$workgroup].w[2]               shared word 2 of this workgroup
#   watch -l __shared[$workgroup].w[2]        watch it
#   x/4xw &__scratch[$wave][5]                lane 5's scratch of this wave
#   break next_word if $v3[$lane] == 5        labels and source lines: break histogram.s:58
#
# The helpers stay for sessions without the symbol file. (No unwinding setting is needed:
# `bt` shows one frame at every PC, with or without the file: the file's call-frame
# information makes every frame outermost, and without it the server's `rsp` points to no
# memory, so gdb's x86 unwinder finds no return address.)
#
# With gdb 13 or later, x/i, disassemble, display/i $pc and layout asm show the kernel's
# own instructions (the disassembler below); older gdb decodes them as x86 (use `disasm`).

# stepi moves only the current wave; continue runs every wave. (gdb accepts this only
# once connected: source this file after `target remote`, or set it yourself then.)
python
try:
    gdb.execute("set scheduler-locking step")
except gdb.error:
    print("wavedbg.gdb: not connected yet; after `target remote` run: set scheduler-locking step")

_WAVEDBG_SHARED = 0x8000000000000000
_WAVEDBG_SCRATCH = 0xC000000000000000


def _wavedbg_reg(name):
    """A register of the current thread's wave: lane, wave, workgroup, wave_in_wg, exec, pc."""
    if gdb.selected_thread() is None:
        raise gdb.GdbError("no thread (is the kernel running?)")
    try:
        return int(gdb.parse_and_eval("$" + name))
    except (gdb.error, ValueError, TypeError):
        raise gdb.GdbError("no $%s register: is gdb connected to wavedbg serve?" % name)


# Set while a monitor command that does not look at a wave runs (`monitor decode` from the
# disassembler, `monitor launch`), so hook-monitor leaves gdb's registers alone.
_wavedbg_no_sync = False


def _wavedbg_sync():
    """Selects gdb's current thread in the server, for the monitor command that follows.
    The server selects a thread when gdb asks whether it is alive (`T`), which `thread N`
    does; gdb switches threads without telling it (after `thread apply 7 p $pc` the server
    is still on thread 7 while gdb is back on the one before)."""
    t = gdb.selected_thread()
    if _wavedbg_no_sync or t is None or not t.is_valid() or t.is_running():
        return
    try:
        gdb.execute("thread %d" % t.num, to_string=True)
    except gdb.error:
        pass  # the monitor command says what is wrong


def _wavedbg_monitor_unsynced(command):
    """Runs `monitor COMMAND` (one that looks at no wave) without hook-monitor's sync."""
    global _wavedbg_no_sync
    _wavedbg_no_sync = True
    try:
        return gdb.execute("monitor " + command, to_string=True)
    finally:
        _wavedbg_no_sync = False


def _wavedbg_flush():
    """Forgets cached registers: `lane` is one selection for every thread. (gdb 13 reads
    registers again after any register write; this is for versions that do not.)"""
    for cmd in ("maintenance flush register-cache", "flushregs"):
        try:
            gdb.execute(cmd, to_string=True)
            return
        except gdb.error:
            pass


def _wavedbg_int(text):
    """A number as gdb users write it: decimal (leading zeros allowed) or 0x hex."""
    text = text.strip()
    if text.lower().startswith("0x"):
        return int(text, 16)
    return int(text, 10)


def _wavedbg_lanes(words):
    """Lane numbers from words such as `3`, `0-7`, `all`."""
    lanes = []
    for w in words:
        if w == "all":
            lanes.extend(range(32))
            continue
        lo, dash, hi = w.partition("-")
        try:
            lo = _wavedbg_int(lo)
            hi = _wavedbg_int(hi) if dash else lo
        except ValueError:
            raise gdb.GdbError("`%s` is not a lane, a range N-M or all" % w)
        if not (0 <= lo <= hi < 32):
            raise gdb.GdbError("lane %s out of range (0-31)" % w)
        lanes.extend(range(lo, hi + 1))
    return lanes


def _wavedbg_select_lane(lane):
    gdb.execute("set $lane = %d" % lane, to_string=True)
    _wavedbg_flush()


def _wavedbg_lane_text(lane):
    """`5 (active) of wave 3, workgroup 1 work-item 37`, after `lane` or `Lane`."""
    active = _wavedbg_reg("exec") >> lane & 1
    return "%d (%s) of wave %d, workgroup %d work-item %d" % (
        lane, "active" if active else "inactive", _wavedbg_reg("wave"),
        _wavedbg_reg("workgroup"), _wavedbg_reg("wave_in_wg") * 32 + lane)


def _wavedbg_frame(pc):
    """`next_word () at histogram.s:43` as gdb shows a frame at the start of a line,
    `0x...70 in next_word () at histogram.s:43` inside one, `0x...6c` without symbols."""
    block = None
    try:
        block = gdb.block_for_pc(pc)
    except RuntimeError:
        pass
    fn = block.function if block is not None else None
    sal = gdb.find_pc_line(pc)
    text = "" if fn is not None and sal.symtab is not None and sal.pc == pc else "0x%016x" % pc
    if fn is not None:
        text += "%s%s ()" % (" in " if text else "", fn.print_name)
    if sal.symtab is not None:
        text += " at %s:%d" % (sal.symtab.filename, sal.line)
    return text


class _WavedbgShared(gdb.Function):
    """$_shared(OFFSET): the address of OFFSET in the current thread's workgroup's shared memory."""

    def __init__(self):
        super().__init__("_shared")

    def invoke(self, offset=0):
        wg = _wavedbg_reg("workgroup")
        offset = int(offset)
        # Within the workgroup's 1 MiB window: further would name another workgroup's.
        if not 0 <= offset < (1 << 20):
            raise gdb.GdbError("offset %d is outside the shared window (0-0xfffff)" % offset)
        return gdb.Value(_WAVEDBG_SHARED + (wg << 20) + offset).cast(
            gdb.lookup_type("unsigned long"))


class _WavedbgScratch(gdb.Function):
    """$_scratch(OFFSET[, LANE]): the address of OFFSET in a lane's scratch of the current thread's wave."""

    def __init__(self):
        super().__init__("_scratch")

    def invoke(self, offset=0, lane=None):
        wave = _wavedbg_reg("wave")
        lane = _wavedbg_reg("lane") if lane is None else int(lane)
        if not 0 <= lane < 32:
            raise gdb.GdbError("lane %d out of range (0-31)" % lane)
        offset = int(offset)
        # Within the lane's 64 KiB window: further would name another lane's.
        if not 0 <= offset < (1 << 16):
            raise gdb.GdbError("offset %d is outside the scratch window (0-0xffff)" % offset)
        return gdb.Value(_WAVEDBG_SCRATCH + (wave << 21) + (lane << 16) + offset).cast(
            gdb.lookup_type("unsigned long"))


class _WavedbgWave(gdb.Command):
    """wave N: switch to the thread of global wave N (its thread id is N + 1).
wave: show the current thread's wave."""

    def __init__(self):
        super().__init__("wave", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if len(words) > 1:
            raise gdb.GdbError("usage: wave [N]  (N: a global wave id)")
        if not words:
            print("[Current thread is %d: wave %d, workgroup %d, wave_in_wg %d]" % (
                gdb.selected_thread().num if gdb.selected_thread() else 0,
                _wavedbg_reg("wave"), _wavedbg_reg("workgroup"), _wavedbg_reg("wave_in_wg")))
            return
        try:
            wave = _wavedbg_int(words[0])
        except ValueError:
            raise gdb.GdbError("usage: wave N (a global wave id)")
        for t in gdb.selected_inferior().threads():
            # Remote threads keep the server's thread id in the ptid's lwp.
            if t.ptid[1] == wave + 1:
                gdb.execute("thread %d" % t.num, from_tty)
                return
        raise gdb.GdbError("wave %d is not resident (`info threads` or `waves` lists the waves)" % wave)


class _WavedbgLane(gdb.Command):
    """lane N: select lane N (0-31), the lane of $lane, $v3[$lane], $_scratch and the lane views.
lane: show the selected lane.
The selection is one for every thread (as cuda-gdb's lane focus)."""

    def __init__(self):
        super().__init__("lane", gdb.COMMAND_RUNNING, prefix=True)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if len(words) > 1:
            raise gdb.GdbError("usage: lane [N]  (lane apply ... runs a command on lanes)")
        if words:
            lanes = _wavedbg_lanes(words)
            if len(lanes) != 1:
                raise gdb.GdbError("lane takes one lane (0-31)")
            _wavedbg_select_lane(lanes[0])
            print("[Switching to lane %s]" % _wavedbg_lane_text(lanes[0]))
        else:
            print("[Current lane is %s]" % _wavedbg_lane_text(_wavedbg_reg("lane")))


class _WavedbgLaneApply(gdb.Command):
    """lane apply all|LANES... [-q] [-c|-s] COMMAND: run COMMAND with each lane selected.
LANES are numbers and ranges (0-7); all is every lane, active or not (the header says
which). -q: no header; -c: go on after an error (printing it); -s: skip lanes whose
command fails, silently. The selected lane is restored afterwards.
Example: lane apply all p $v3[$lane]"""

    def __init__(self):
        super().__init__("lane apply", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        words = arg.split()
        picks = []
        while words and (words[0] == "all" or words[0][:1].isdigit()):
            picks.append(words.pop(0))
        flags = set()
        while words and words[0] in ("-q", "-c", "-s"):
            flags.add(words.pop(0))
        if not picks or not words:
            raise gdb.GdbError("usage: lane apply all|LANES... [-q] [-c|-s] COMMAND")
        lanes = _wavedbg_lanes(picks)
        cmd = arg.split(None, len(arg.split()) - len(words))[-1]
        before = _wavedbg_reg("lane")
        try:
            for lane in lanes:
                _wavedbg_select_lane(lane)
                header = "\nLane %s:" % _wavedbg_lane_text(lane)
                try:
                    out = gdb.execute(cmd, from_tty, to_string=True)
                except gdb.error as e:
                    if "-s" in flags:
                        continue
                    if "-q" not in flags:
                        print(header)
                    if "-c" not in flags:
                        raise gdb.GdbError(str(e))
                    print(e)
                    continue
                if "-q" not in flags:
                    print(header)
                gdb.write(out)
        finally:
            _wavedbg_select_lane(before)


class _WavedbgInfoLanes(gdb.Command):
    """info lanes [-active|-inactive] [-r] [REGISTER...] [LANES...]: the current wave's lanes:
selected (*), state (A active, I inactive under EXEC), the lane's wave, workgroup and
work-item in it, each named REGISTER's value in that lane, and where it is (a wave's lanes
share its PC; an inactive lane does not execute there). A vector register (v3) gives each
lane its element, any other (u8, exec) the same value; an inactive lane's value is in
parentheses. -r only marks the register names (info lanes -r v3 v4 0-7)."""

    def __init__(self):
        super().__init__("info lanes", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        only = None
        if words and words[0] in ("-active", "-inactive"):
            only = words.pop(0) == "-active"
        marked = bool(words) and words[0] == "-r"
        if marked:
            words.pop(0)
        names = []
        while words and words[0] != "all" and words[0][:1] in "$abcdefghijklmnopqrstuvwxyz_":
            names.append(words.pop(0).lstrip("$"))
        if marked and not names:
            raise gdb.GdbError("usage: info lanes [-active|-inactive] [-r] REGISTER... [LANES...]")
        columns = [_wavedbg_lane_column(name) for name in names]
        lanes = _wavedbg_lanes(words) if words else range(32)
        exec_mask = _wavedbg_reg("exec")
        pc = _wavedbg_reg("pc")
        selected = _wavedbg_reg("lane")
        wave, wg, index = (_wavedbg_reg(r) for r in ("wave", "workgroup", "wave_in_wg"))
        frame = _wavedbg_frame(pc)
        rows = []
        for lane in lanes:
            active = bool(exec_mask >> lane & 1)
            if only is None or active == only:
                target = "wave %d lane %d, workgroup %d work-item %d" % (
                    wave, lane, wg, index * 32 + lane)
                values = [c[1](lane) if active else "(%s)" % c[1](lane) for c in columns]
                rows.append(("*" if lane == selected else " ", lane, "A" if active else "I",
                             target, values))
        if not rows:
            print("No %s lanes in wave %d (exec 0x%08x)." % (
                "active" if only else "inactive", wave, exec_mask))
            return
        width = max(len(r[3]) for r in rows)
        widths = [max([len(c[0])] + [len(r[4][k]) for r in rows]) for k, c in enumerate(columns)]
        regs = "".join("%-*s  " % (w, c[0]) for w, c in zip(widths, columns))
        print("  Id  State  %-*s  %sFrame" % (width, "Target Id", regs))
        for mark, lane, state, target, values in rows:
            regs = "".join("%-*s  " % (w, v) for w, v in zip(widths, values))
            print("%s %-3d %-6s %-*s  %s%s" % (mark, lane, state, width, target, regs, frame))


def _wavedbg_lane_column(name):
    """(header, lane -> text) for a register column of `info lanes`: a vector register's
    element of each lane, any other register's one value, in hex."""
    if gdb.selected_thread() is None:
        raise gdb.GdbError("no thread (is the kernel running?)")
    try:
        value = gdb.parse_and_eval("$" + name)
    except gdb.error as e:
        raise gdb.GdbError("%s: %s" % (name, e))
    kind = value.type.strip_typedefs()
    if kind.code == gdb.TYPE_CODE_ARRAY:
        digits = 2 * kind.target().sizeof
        words = [int(value[k]) for k in range(32)]
        return (name, lambda lane: "0x%0*x" % (digits, words[lane]))
    if kind.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_PTR):
        digits = 2 * kind.sizeof
        word = int(value) & ((1 << 8 * kind.sizeof) - 1)
        return (name, lambda lane: "0x%0*x" % (digits, word))
    raise gdb.GdbError("no register $%s (info registers vector lists v0-v127)" % name)


_WAVEDBG_LANE_REGS = ("lane", "wave", "workgroup", "wave_in_wg")


class _WavedbgInfoRegisters(gdb.Command):
    """info registers [REGISTER|GROUP...]: the wave's registers.
Without arguments: pc (rip), exec, u0-u63, lane, wave, workgroup and wave_in_wg; not the
128 vector registers (32 lanes each) nor the inert x86 registers. Groups: vector (v0-v127),
lv (the selected lane's value of each), general (the default), all. Register names as in
gdb's own command (info registers v3 u8 exec). info all-registers prints every register.
(gdb's x86 architecture puts every register it does not know in its general group, so
without this command `info registers` would print all 4,096 vector lanes.)"""

    def __init__(self):
        super().__init__("info registers", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        names = []
        for w in words or ["general"]:
            name = w.lstrip("$")
            if name == "general":
                names += ["rip", "exec"] + ["u%d" % k for k in range(64)]
                names += list(_WAVEDBG_LANE_REGS)
            elif name == "vector":
                names += ["v%d" % k for k in range(128)]
            elif name == "lv":
                names += ["lv%d" % k for k in range(128)]
            elif name == "all":
                names = []
                break
            else:
                names.append(name)
        # `info all-registers NAME...` prints named registers as `info registers` does. Its
        # errors ("Invalid register `xmm0'") are gdb's, said as gdb says them (a GdbError
        # prints no Python exception).
        try:
            gdb.execute(" ".join(["info all-registers"] + names), from_tty)
        except gdb.error as e:
            raise gdb.GdbError(str(e))


_WavedbgShared()
_WavedbgScratch()
_WavedbgInfoRegisters()
_WavedbgWave()
_WavedbgLane()
_WavedbgLaneApply()
_WavedbgInfoLanes()


# The kernel's own instructions where gdb shows instructions (x/i, disassemble, display/i,
# layout asm): with gdb 13 or later a Python disassembler for i386:x86-64 (the architecture
# the server describes) asks the server for their texts, 64 at a time (`monitor decode
# ADDR N`), and keeps them, since the code is read-only. An address where no instruction
# starts (inside a 64-bit instruction, a buffer) shows as `.word` (`.byte` when unaligned).
# Without a connection to wavedbg serve, gdb's own x86 decoding stays. Older gdb has no
# gdb.disassembler: there x/i decodes x86, and `disasm` (monitor disassemble) shows the code.
_WAVEDBG_DECODE_BATCH = 64
_wavedbg_code = {}


def _wavedbg_instruction(address):
    """The kernel's instruction at ADDRESS as (length, text); False when none starts there;
    None when gdb is not connected to wavedbg serve (so gdb decodes as it would)."""
    inferior = gdb.selected_inferior()
    connection = getattr(inferior, "connection_num", None) if inferior else None
    if connection is None:
        return None
    key = (connection, address)
    if key not in _wavedbg_code:
        try:
            out = _wavedbg_monitor_unsynced("decode %#x %d" % (address, _WAVEDBG_DECODE_BATCH))
        except gdb.error:
            return None
        for line in out.splitlines():
            words = line.split(" ", 2)
            try:
                _wavedbg_code[(connection, int(words[0], 16))] = (int(words[1]), words[2])
            except (IndexError, ValueError):
                # Not wavedbg serve's answer (another server, or one without `decode`).
                return None
        _wavedbg_code.setdefault(key, False)
    return _wavedbg_code[key]


try:
    import gdb.disassembler

    class _WavedbgDisassembler(gdb.disassembler.Disassembler):
        """The kernel's instructions, as the server decodes them."""

        def __init__(self):
            super().__init__("wavedbg")

        def __call__(self, info):
            found = _wavedbg_instruction(info.address)
            if found is None:
                return None
            if found is False:
                if info.address % 4:
                    byte = info.read_memory(1, 0).tobytes()[0]
                    return gdb.disassembler.DisassemblerResult(1, ".byte %#04x" % byte)
                word = int.from_bytes(info.read_memory(4, 0).tobytes(), "little")
                return gdb.disassembler.DisassemblerResult(4, ".word %#010x" % word)
            return gdb.disassembler.DisassemblerResult(found[0], found[1])

    gdb.disassembler.register_disassembler(_WavedbgDisassembler(), "i386:x86-64")
    # A new connection may serve another kernel: forget the old one's code.
    gdb.events.connection_removed.connect(lambda event: _wavedbg_code.clear())
except (ImportError, AttributeError):
    pass
end

# Every monitor command acts on gdb's current thread: the hook tells the server which
# thread that is first (gdb does not when it switches threads, as `thread apply` does).
define hook-monitor
  python _wavedbg_sync()
end

define waves
  monitor threads
end
document waves
List the resident waves: thread id (global wave id + 1), wave, workgroup, wave_in_wg, state, PC.
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
disasm [LOCATION]: the kernel's disassembly around the current wave's PC (or LOCATION),
with labels, => at the PC and B at the engine's breakpoints. LOCATION is a label,
label+OFFSET or address. (With gdb 13 or later x/i and disassemble show the same
instructions; older gdb decodes them as x86 there.)
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

# ROCgdb's convenience variables and `info agents`, `info queues`, `info dispatches`
# (docs/gdb.md, "ROCgdb and cuda-gdb habits"). The grid is one-dimensional: workgroup W is (W,0,0).
# The variables are set, not computed when read as ROCgdb's are: at every stop and prompt,
# after a register write (`lane N`) and after `thread N` (`wave N`). A breakpoint condition
# is evaluated before the stop sets them, so conditions use the registers: $lane,
# $wave_in_wg, $workgroup.
python
def _wavedbg_set_var(name, value):
    """Sets $NAME to an int or a string (char array, as ROCgdb's strings)."""
    if hasattr(gdb, "set_convenience_variable"):
        if isinstance(value, int):
            value = gdb.Value(value).cast(gdb.lookup_type("int"))
        elif not value:
            value = gdb.parse_and_eval('""')  # prints as "", where char[0] prints as 0x0
        gdb.set_convenience_variable(name, value)
    elif isinstance(value, int):
        gdb.execute("set $%s = %d" % (name, value), to_string=True)
    else:
        gdb.execute('set $%s = "%s"' % (name, value), to_string=True)


def _wavedbg_rocgdb_refresh(*_event):
    """Sets $_lane, $_dispatch_pos, $_thread_workgroup_pos and $_lane_workgroup_pos for
    gdb's current thread and the selected lane (0 and empty strings without a thread)."""
    ids = None
    if gdb.selected_thread() is not None:
        try:
            ids = [int(gdb.parse_and_eval("$" + r)) for r in ("lane", "workgroup", "wave_in_wg")]
        except (gdb.error, ValueError, TypeError):
            pass  # not a wavedbg target, or its thread is running
    if ids is None:
        lane, texts = 0, ("", "", "")
    else:
        lane, wg, index = ids
        texts = ("(%d,0,0)/%d" % (wg, index), "%d" % index, "[%d,0,0]" % (index * 32 + lane))
    try:
        _wavedbg_set_var("_lane", lane)
        for name, text in zip(("_dispatch_pos", "_thread_workgroup_pos", "_lane_workgroup_pos"),
                              texts):
            _wavedbg_set_var(name, text)
    except gdb.error:
        pass


def _wavedbg_launch():
    """The launch (`monitor launch`: grid, workgroup, shared, scratch, resident, kernel),
    or None when there is no process (ROCgdb then lists no agent, queue or dispatch)."""
    if gdb.selected_inferior().pid == 0 or gdb.selected_thread() is None:
        return None
    try:
        text = _wavedbg_monitor_unsynced("launch")
    except gdb.error as e:
        raise gdb.GdbError("monitor launch: %s (is gdb connected to wavedbg serve?)" % e)
    launch = dict(w.split("=", 1) for w in text.split() if "=" in w)
    try:
        for key in ("grid", "workgroup", "shared", "scratch", "resident"):
            launch[key] = int(launch[key])
    except (KeyError, ValueError):
        launch = {}
    if "kernel" not in launch:
        raise gdb.GdbError("monitor launch said %r: is gdb connected to wavedbg serve?" % text)
    return launch


def _wavedbg_ids_match(words):
    """Whether ID words of `info agents|queues|dispatches` (N, N-M or INFERIOR.N) name id 1,
    the only agent, queue and dispatch."""
    if not words:
        return True
    for w in words:
        inferior, dot, ids = w.rpartition(".")
        if dot and inferior != str(gdb.selected_inferior().num):
            continue
        lo, dash, hi = ids.partition("-")
        try:
            if int(lo) <= 1 <= (int(hi) if dash else int(lo)):
                return True
        except ValueError:
            raise gdb.GdbError("`%s` is not an id, a range N-M or INFERIOR.ID" % w)
    return False


def _wavedbg_table(kind, args, headers, row):
    """Prints a one-row table as ROCgdb lays its `info` tables out: a current-marker column,
    then each column at least as wide as (header, its minimum width)."""
    words = gdb.string_to_argv(args)
    if not _wavedbg_ids_match(words):
        print("No active %s match '%s'." % (kind, args))
        return
    if row is None:
        print("No %s are currently active." % kind)
        return
    widths = [max(len(h), minimum, len(v)) for (h, minimum), v in zip(headers, row)]
    print(" ".join([" "] + ["%-*s" % (w, h) for w, (h, _m) in zip(widths, headers)]).rstrip())
    print(" ".join(["*"] + ["%-*s" % (w, v) for w, v in zip(widths, row)]).rstrip())


class _WavedbgInfoAgents(gdb.Command):
    """info agents [ID...]: the heterogeneous agents, as ROCgdb lists them: one, the
emulated wave32 GPU. Cores are its resident workgroup slots, Threads the waves resident at
once, Location the server's address."""

    def __init__(self):
        super().__init__("info agents", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        launch = _wavedbg_launch()
        row = None
        if launch is not None:
            connection = getattr(gdb.selected_inferior(), "connection", None)
            row = ["1", "A", "wavedbg Agent (emulated)", "wave32", "wavedbg wave32 GPU",
                   str(launch["resident"]),
                   str(launch["resident"] * (launch["workgroup"] // 32)),
                   getattr(connection, "details", None) or "emulated"]
        _wavedbg_table("agents", arg, [("Id", 2), ("State", 5), ("Target Id", 9),
                                       ("Architecture", 12), ("Device Name", 11),
                                       ("Cores", 5), ("Threads", 7), ("Location", 8)], row)


class _WavedbgInfoQueues(gdb.Command):
    """info queues [ID...]: the heterogeneous queues, as ROCgdb lists them: one, which
held the launch's one dispatch packet (read and written: packet 1 is next); it has no
packet buffer (size 0, address 0)."""

    def __init__(self):
        super().__init__("info queues", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        row = None
        if _wavedbg_launch() is not None:
            row = ["1", "wavedbg Queue 1:1 (QID 0)", "Launch", "1", "1", "0",
                   "0x%016x" % 0]
        _wavedbg_table("queues", arg, [("Id", 4), ("Target Id", 9), ("Type", 12),
                                       ("Read", 6), ("Write", 6), ("Size", 8),
                                       ("Address", 18)], row)


class _WavedbgInfoDispatches(gdb.Command):
    """info dispatches [-full] [ID...]: the heterogeneous dispatches, as ROCgdb lists them:
one, the launch of the kernel. Grid and Workgroup are in work-items (lanes), one dimension;
no fences. -full adds the address spaces: Shared (bytes a workgroup) and Private (scratch
bytes a lane)."""

    def __init__(self):
        super().__init__("info dispatches", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        full = "-full" in words
        if full:
            words.remove("-full")
        launch = _wavedbg_launch()
        headers = [("Id", 4), ("Target Id", 9), ("Grid", 4), ("Workgroup", 9), ("Fence", 7)]
        if full:
            headers.append(("Address Spaces", 14))
        headers.append(("Kernel Function", 1))
        row = None
        if launch is not None:
            row = ["1", "wavedbg Dispatch 1:1:1 (PKID 0)",
                   "[%d]" % (launch["grid"] * launch["workgroup"]),
                   "[%d]" % launch["workgroup"], ""]
            if full:
                row.append("Shared(%d), Private(%d)" % (launch["shared"], launch["scratch"]))
            row.append(launch["kernel"])
        _wavedbg_table("dispatches", " ".join(words), headers, row)


_WavedbgInfoAgents()
_WavedbgInfoQueues()
_WavedbgInfoDispatches()
# `info dispatches` would make gdb's abbreviations `info dis` and `info disp` ambiguous.
for _alias in ("dis", "disp"):
    try:
        gdb.execute("alias -a info %s = info display" % _alias, to_string=True)
    except gdb.error:
        pass  # defined already (the file sourced again), or an old gdb without alias

if not globals().get("_wavedbg_rocgdb_connected"):
    _wavedbg_rocgdb_connected = True
    for _name in ("stop", "before_prompt", "register_changed", "exited"):
        _registry = getattr(gdb.events, _name, None)
        if _registry is not None:
            _registry.connect(lambda event=None: _wavedbg_rocgdb_refresh())
_wavedbg_rocgdb_refresh()
end

define hookpost-thread
  python _wavedbg_rocgdb_refresh()
end

# Going back moves the whole machine (it has one history), but under `scheduler-locking
# step` gdb resumed only the current thread and keeps the registers it had read of the
# others: they are dropped after each reverse step, so every thread shows the machine as
# it now is.
define hookpost-reverse-stepi
  python gdb.execute("maint flush register-cache", to_string=True)
end
define hookpost-reverse-nexti
  python gdb.execute("maint flush register-cache", to_string=True)
end
define hookpost-reverse-step
  python gdb.execute("maint flush register-cache", to_string=True)
end
define hookpost-reverse-next
  python gdb.execute("maint flush register-cache", to_string=True)
end
define hookpost-reverse-finish
  python gdb.execute("maint flush register-cache", to_string=True)
end
