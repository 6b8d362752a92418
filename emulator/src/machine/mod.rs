//! The machine: a launch of workgroups dispatched into resident slots, waves scheduled
//! deterministically, and the faults, deadlocks and completion they end in.
//!
//! Scheduling policy (docs/scheduling.md): round-robin over resident waves in slot order,
//! each wave running up to `quantum` instructions before the next; with a non-zero seed
//! both the quantum (1..=2*quantum) and the next wave (any runnable one) are drawn from a
//! SplitMix64 generator seeded with it. The same program, launch and seed give the same
//! interleaving. A snapshot is a clone: memory pages are shared copy-on-write.

// The old paths of the wave state and faults, which now live below both the machine and
// the semantics (`crate::wave`, `crate::fault`).
pub use crate::{fault, wave};

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::exec::{self, AccessLog, Ctx, Decoded, Flow};
use crate::isa::Instr;
use crate::memory::{BufferDescriptor, GlobalMemory, PagedBytes};
use crate::program::{ArgValue, LaunchConfig, Program};
use crate::fault::{Fault, FaultKind};
use crate::wave::{Wave, WaveState};

/// Launch settings beyond the kernel's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchOptions {
    /// Overrides the kernel's grid size (workgroups).
    pub grid: Option<u32>,
    /// Overrides the kernel's workgroup size (lanes).
    pub workgroup_lanes: Option<u32>,
    /// Scheduling seed; 0 is plain round-robin.
    pub seed: u64,
    /// Instructions a wave runs before the scheduler moves on (at least 1).
    pub quantum: u32,
    /// Workgroups resident at once; the next is dispatched when one finishes.
    pub resident_workgroups: u32,
    /// Total wave-instructions before a BudgetExhausted fault (`None`: unlimited).
    pub max_instructions: Option<u64>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            grid: None,
            workgroup_lanes: None,
            seed: 0,
            quantum: 8,
            resident_workgroups: 8,
            max_instructions: Some(100_000_000),
        }
    }
}

/// Why a launch cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// Bad launch shape.
    #[error("invalid launch: {0}")]
    Shape(String),
    /// The program is not a valid kernel.
    #[error(transparent)]
    Program(#[from] crate::program::ProgramError),
}

/// Most waves resident at once: the register files of this many waves take 64 MiB.
pub const MAX_RESIDENT_WAVES: u32 = 4096;

/// A barrier that can never complete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadlock {
    /// Workgroup.
    pub workgroup: u32,
    /// Waves waiting at a barrier, with their PCs.
    pub waiting: Vec<(u32, u64)>,
    /// Waves that will never arrive (exited or faulted).
    pub missing: Vec<(u32, WaveState)>,
}

impl std::fmt::Display for Deadlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting: Vec<String> = self
            .waiting
            .iter()
            .map(|(w, pc)| format!("wave {w} at pc {pc:#06x}"))
            .collect();
        let missing: Vec<String> = self
            .missing
            .iter()
            .map(|(w, s)| format!("wave {w} ({})", s.name()))
            .collect();
        write!(
            f,
            "deadlock in workgroup {}: {} wait{} at a barrier that {} will never reach",
            self.workgroup,
            waiting.join(", "),
            if self.waiting.len() == 1 { "s" } else { "" },
            if missing.is_empty() {
                "no other wave".to_string()
            } else {
                missing.join(", ")
            }
        )
    }
}

/// Something the caller must see: the run cannot simply go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A wave faulted (it is left in state Faulted).
    Fault(Fault),
    /// A barrier can never complete.
    Deadlock(Deadlock),
    /// A wave executed `brk` (only when [`Machine::break_is_fault`] is off); its PC is past it.
    Break {
        /// Index of the wave in [`Machine::waves`].
        wave: usize,
        /// The brk's address.
        pc: u64,
    },
    /// Every wave of every workgroup has exited.
    Finished,
    /// No wave can run: the remaining ones are stopped by the debugger.
    Stalled,
    /// The scheduled wave is about to execute an instruction marked in
    /// [`Machine::break_at`]; nothing was executed. The debugger decides whether to stop,
    /// and sets [`Machine::skip_break`] to go on.
    BreakpointHit {
        /// Index of the wave in [`Machine::waves`].
        wave: usize,
        /// Its PC.
        pc: u64,
    },
    /// The instruction just executed touched a range of [`Machine::accesses`]' filter.
    WatchHit {
        /// Index of the wave.
        wave: usize,
        /// PC of the accessing instruction.
        pc: u64,
    },
}

/// Execution statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Instructions executed, counted once per wave.
    pub wave_instructions: u64,
    /// Sum over executed instructions of the active lanes.
    pub lane_ops: u64,
    /// Waves created.
    pub waves_launched: u64,
    /// Workgroups finished.
    pub workgroups_finished: u64,
}

/// A decoded code word.
#[derive(Debug, Clone, PartialEq)]
pub enum CodeWord {
    /// The start of an instruction.
    Instr(Decoded),
    /// Not a legal instruction (the decoder's reason).
    Illegal(String),
    /// The second word of a 64-bit instruction.
    Inside,
}

/// SplitMix64: tiny, seedable, and the same on every platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A resident workgroup slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// The workgroup in the slot (`None` once no more remain to dispatch).
    pub workgroup: Option<u32>,
    /// Its shared memory.
    pub shared: PagedBytes,
}

/// The whole machine state. `Clone` is a snapshot (memory pages are shared until written).
#[derive(Debug, Clone)]
pub struct Machine {
    program: Arc<Program>,
    code: Arc<Vec<CodeWord>>,
    launch: LaunchConfig,
    options: LaunchOptions,
    /// Global memory.
    pub global: GlobalMemory,
    /// Base address of each declared buffer, in declaration order.
    pub buffer_bases: Vec<u64>,
    /// The uniform registers every wave starts with (the kernel's arguments).
    initial_u: [u32; wave::UREGS],
    /// Resident waves: slot `s` owns waves `s * W .. (s + 1) * W`.
    pub waves: Vec<Wave>,
    /// Resident workgroup slots.
    pub slots: Vec<Slot>,
    next_workgroup: u32,
    rng: Option<SplitMix64>,
    current: usize,
    left: u32,
    /// Statistics.
    pub stats: Stats,
    /// `brk` faults (plain runs) instead of raising [`Event::Break`] (the debugger).
    pub break_is_fault: bool,
    /// When set, accesses of the last instruction to watched ranges are recorded here.
    pub accesses: Option<AccessLog>,
    /// Per code word: stop with [`Event::BreakpointHit`] before executing it (empty: never).
    pub break_at: Vec<bool>,
    /// Lets wave `.0` execute the instruction at `.1` once despite [`Machine::break_at`]
    /// (resuming from a breakpoint).
    pub skip_break: Option<(usize, u64)>,
}

/// The uniform registers every wave starts with: the `.arg` values, buffer addresses and
/// descriptors (computed once per launch, not per workgroup).
fn initial_uniforms(program: &Program, buffer_bases: &[u64]) -> [u32; wave::UREGS] {
    let mut args = [0u32; wave::UREGS];
    for a in &program.args {
        let r = a.reg as usize;
        // `Program::validate` verified every name and that the registers fit.
        let base = |n: &str| {
            let i = program
                .buffers
                .iter()
                .position(|b| b.name == n)
                .unwrap_or(0);
            (
                buffer_bases.get(i).copied().unwrap_or(0),
                program.buffers.get(i).map_or(0, |b| b.size),
            )
        };
        match &a.value {
            ArgValue::Value(v) => args[r] = *v,
            ArgValue::Address(n) => {
                let (b, _) = base(n);
                args[r] = b as u32;
                args[r + 1] = (b >> 32) as u32;
            }
            ArgValue::Descriptor(n) => {
                let (b, size) = base(n);
                let d = BufferDescriptor::new(b, size.min(u32::MAX as u64) as u32).to_dwords();
                args[r..r + 4].copy_from_slice(&d);
            }
        }
    }
    args
}

/// Decodes a code image once.
pub fn decode_code(code: &[u32]) -> Vec<CodeWord> {
    let mut out = Vec::with_capacity(code.len());
    while out.len() < code.len() {
        match Instr::decode(&code[out.len()..]) {
            Ok(instr) => match Decoded::new(instr) {
                Some(d) => {
                    out.push(CodeWord::Instr(d));
                    if d.len == 8 {
                        out.push(CodeWord::Inside);
                    }
                }
                None => out.push(CodeWord::Illegal(format!(
                    "no semantics for {}",
                    instr.def().mnemonic()
                ))),
            },
            Err(e) => out.push(CodeWord::Illegal(e.to_string())),
        }
    }
    out
}

impl Machine {
    /// Sets up a launch: allocates buffers, creates the first resident workgroups.
    pub fn new(program: &Program, options: LaunchOptions) -> Result<Machine, LaunchError> {
        let mut launch = program.launch;
        if let Some(g) = options.grid {
            launch.grid = g;
        }
        if let Some(l) = options.workgroup_lanes {
            launch.workgroup_lanes = l;
        }
        program.validate()?;
        if launch.workgroup_lanes == 0
            || !launch.workgroup_lanes.is_multiple_of(32)
            || launch.workgroup_lanes > crate::program::MAX_WORKGROUP_LANES
        {
            return Err(LaunchError::Shape(format!(
                "workgroup size {} is not a multiple of 32 in 32..={}",
                launch.workgroup_lanes,
                crate::program::MAX_WORKGROUP_LANES
            )));
        }
        if launch.grid == 0 {
            return Err(LaunchError::Shape("the grid has no workgroups".into()));
        }
        let resident = options.resident_workgroups.max(1).min(launch.grid);
        if resident as u64 * launch.waves_per_workgroup() as u64 > MAX_RESIDENT_WAVES as u64 {
            return Err(LaunchError::Shape(format!(
                "{resident} resident workgroups of {} waves is more than {MAX_RESIDENT_WAVES} resident waves",
                launch.waves_per_workgroup()
            )));
        }
        let mut global = GlobalMemory::default();
        let buffer_bases = program
            .buffers
            .iter()
            .map(|b| global.allocate(&b.name, b.size, &b.init))
            .collect::<Vec<u64>>();
        let initial_u = initial_uniforms(program, &buffer_bases);
        let mut m = Machine {
            program: Arc::new(program.clone()),
            code: Arc::new(decode_code(&program.code)),
            launch,
            options,
            global,
            buffer_bases,
            initial_u,
            waves: Vec::new(),
            slots: Vec::new(),
            next_workgroup: 0,
            rng: (options.seed != 0).then_some(SplitMix64(options.seed)),
            current: 0,
            left: 0,
            stats: Stats::default(),
            break_is_fault: true,
            accesses: None,
            break_at: Vec::new(),
            skip_break: None,
        };
        for _ in 0..resident {
            m.slots.push(Slot {
                workgroup: None,
                shared: PagedBytes::zeroed(0),
            });
            let s = m.slots.len() - 1;
            m.dispatch(s);
        }
        m.left = m.quantum();
        Ok(m)
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The effective launch shape.
    pub fn launch(&self) -> &LaunchConfig {
        &self.launch
    }

    /// The options the launch was made with.
    pub fn options(&self) -> &LaunchOptions {
        &self.options
    }

    /// The decoded code, one entry per 32-bit word.
    pub fn code(&self) -> &[CodeWord] {
        &self.code
    }

    /// The decoded instruction at a byte address.
    pub fn instr_at(&self, pc: u64) -> Option<&Decoded> {
        if !pc.is_multiple_of(4) {
            return None;
        }
        match self.code.get((pc / 4) as usize)? {
            CodeWord::Instr(d) => Some(d),
            _ => None,
        }
    }

    /// Base address of a buffer by name.
    pub fn buffer_base(&self, name: &str) -> Option<u64> {
        let i = self.program.buffers.iter().position(|b| b.name == name)?;
        Some(self.buffer_bases[i])
    }

    fn quantum(&mut self) -> u32 {
        let q = self.options.quantum.max(1);
        match &mut self.rng {
            Some(r) => 1 + r.below(2 * q as u64) as u32,
            None => q,
        }
    }

    fn waves_per_group(&self) -> usize {
        self.launch.waves_per_workgroup() as usize
    }

    /// Creates the next workgroup in slot `s` (or leaves the slot empty).
    fn dispatch(&mut self, s: usize) {
        let wpg = self.waves_per_group();
        let scratch = self.launch.scratch_bytes;
        if self.next_workgroup >= self.launch.grid {
            self.slots[s].workgroup = None;
            return;
        }
        let wg = self.next_workgroup;
        self.next_workgroup += 1;
        self.slots[s] = Slot {
            workgroup: Some(wg),
            shared: PagedBytes::zeroed(self.launch.shared_bytes as u64),
        };
        for i in 0..wpg {
            let mut w = Wave::new(wg * wpg as u32 + i as u32, wg, i as u32, scratch);
            w.u = self.initial_u;
            let idx = s * wpg + i;
            if idx < self.waves.len() {
                self.waves[idx] = w;
            } else {
                self.waves.push(w);
            }
            self.stats.waves_launched += 1;
        }
    }

    /// The slot index of a wave index.
    pub fn slot_of(&self, wave: usize) -> usize {
        wave / self.waves_per_group()
    }

    /// Waves of the launch that have not exited: resident ones still alive, plus those of
    /// workgroups not dispatched yet.
    pub fn waves_remaining(&self) -> u64 {
        let alive = self.waves.iter().filter(|w| w.alive()).count() as u64;
        alive + self.workgroups_pending() as u64 * self.waves_per_group() as u64
    }

    /// Workgroups not dispatched yet.
    pub fn workgroups_pending(&self) -> u32 {
        self.launch.grid - self.next_workgroup
    }

    /// Whether every workgroup has been dispatched and all waves have exited.
    pub fn finished(&self) -> bool {
        self.next_workgroup >= self.launch.grid
            && self.waves.iter().all(|w| w.state == WaveState::Exited)
    }

    /// Picks the wave to run next, or reports why none can.
    pub fn schedule(&mut self) -> Result<usize, Event> {
        let n = self.waves.len();
        let runnable = |w: &Wave| w.state == WaveState::Ready;
        if self.left > 0 && self.waves.get(self.current).is_some_and(runnable) {
            return Ok(self.current);
        }
        let ready: Vec<usize> = (1..=n)
            .map(|k| (self.current + k) % n)
            .filter(|&i| runnable(&self.waves[i]))
            .collect();
        let Some(&first) = ready.first() else {
            return Err(self.idle_reason());
        };
        let pick = match &mut self.rng {
            Some(r) => ready[r.below(ready.len() as u64) as usize],
            None => first,
        };
        self.current = pick;
        self.left = self.quantum();
        Ok(pick)
    }

    fn idle_reason(&self) -> Event {
        if self.finished() {
            return Event::Finished;
        }
        for s in 0..self.slots.len() {
            if let Some(d) = self.deadlock_in(s, true) {
                return Event::Deadlock(d);
            }
        }
        Event::Stalled
    }

    /// A deadlock in slot `s`: waves wait at a barrier that exited or faulted waves (or,
    /// when `global` is set because nothing else can run, stopped waves) will never reach.
    fn deadlock_in(&self, s: usize, global: bool) -> Option<Deadlock> {
        let wpg = self.waves_per_group();
        let group = &self.waves[s * wpg..(s + 1) * wpg];
        // A waiting wave's PC is already past its (32-bit) barrier: report the barrier's.
        let waiting: Vec<(u32, u64)> = group
            .iter()
            .filter(|w| w.state == WaveState::AtBarrier)
            .map(|w| (w.id, w.pc.wrapping_sub(4)))
            .collect();
        if waiting.is_empty() {
            return None;
        }
        let missing: Vec<(u32, WaveState)> = group
            .iter()
            .filter(|w| !w.alive())
            .map(|w| (w.id, w.state))
            .collect();
        let stuck = group
            .iter()
            .all(|w| w.state != WaveState::Ready && w.state != WaveState::Stopped);
        (!missing.is_empty() || (global && stuck)).then(|| Deadlock {
            workgroup: group[0].workgroup,
            waiting,
            missing,
        })
    }

    /// Releases slot `s`'s barrier if every wave has arrived.
    fn try_release(&mut self, s: usize) {
        let wpg = self.waves_per_group();
        let group = &mut self.waves[s * wpg..(s + 1) * wpg];
        if group.iter().all(|w| w.state == WaveState::AtBarrier) {
            group.iter_mut().for_each(|w| w.state = WaveState::Ready);
        }
    }

    /// Executes one instruction of the scheduled wave.
    pub fn step(&mut self) -> Option<Event> {
        let w = match self.schedule() {
            Ok(w) => w,
            Err(e) => return Some(e),
        };
        // Debugger hooks: one indexed load per instruction when breakpoints are set, and
        // a length check when watchpoints are.
        if !self.break_at.is_empty() {
            let pc = self.waves[w].pc;
            if self
                .break_at
                .get((pc / 4) as usize)
                .copied()
                .unwrap_or(false)
                && self.skip_break.take_if(|s| *s == (w, pc)).is_none()
            {
                return Some(Event::BreakpointHit { wave: w, pc });
            }
        }
        let pc = self.waves[w].pc;
        let event = self.step_scheduled(w);
        if self.skip_break.is_some_and(|s| s.0 == w) {
            self.skip_break = None;
        }
        if event.is_none() && self.accesses.as_ref().is_some_and(|l| !l.hits.is_empty()) {
            return Some(Event::WatchHit { wave: w, pc });
        }
        event
    }

    /// Executes one instruction of wave `w` as picked by [`Machine::schedule`] (counting
    /// against its quantum). The debugger schedules, checks breakpoints, then calls this.
    pub fn step_scheduled(&mut self, w: usize) -> Option<Event> {
        self.left = self.left.saturating_sub(1);
        self.step_wave(w)
    }

    /// Executes one instruction of wave `w` (which must be Ready or Stopped; the caller
    /// decides). Returns an event when the run cannot simply go on.
    pub fn step_wave(&mut self, w: usize) -> Option<Event> {
        // Clear first: an instruction that faults before touching memory must not leave the
        // previous instruction's accesses behind.
        if let Some(log) = &mut self.accesses {
            log.hits.clear();
        }
        if w >= self.waves.len()
            || !self.waves[w].alive()
            || self.waves[w].state == WaveState::AtBarrier
        {
            return None;
        }
        let pc = self.waves[w].pc;
        let d = match pc
            .is_multiple_of(4)
            .then(|| self.code.get((pc / 4) as usize))
            .flatten()
        {
            Some(CodeWord::Instr(d)) => *d,
            Some(CodeWord::Illegal(reason)) => {
                return Some(self.fault(
                    w,
                    FaultKind::IllegalInstruction {
                        reason: reason.clone(),
                    },
                    0,
                    None,
                    0,
                    None,
                ));
            }
            _ => return Some(self.fault(w, FaultKind::BadPc, 0, None, 0, None)),
        };
        if let Some(limit) = self.options.max_instructions {
            if self.stats.wave_instructions >= limit {
                return Some(self.fault(
                    w,
                    FaultKind::BudgetExhausted { limit },
                    0,
                    None,
                    0,
                    Some(d),
                ));
            }
        }
        let s = self.slot_of(w);
        let exec_mask = self.waves[w].exec;
        let scratch_bytes = self.launch.scratch_bytes as u64;
        let result = {
            let mut ctx = Ctx {
                wave: &mut self.waves[w],
                shared: &mut self.slots[s].shared,
                global: &mut self.global,
                launch: &self.launch,
                scratch_bytes,
                accesses: self.accesses.as_mut(),
            };
            exec::execute(&mut ctx, &d, pc)
        };
        self.stats.wave_instructions += 1;
        self.stats.lane_ops += exec_mask.count_ones() as u64;
        self.waves[w].executed += 1;
        let next = pc + d.len as u64;
        match result {
            Ok(Flow::Next) => self.waves[w].pc = next,
            Ok(Flow::Jump(t)) => self.waves[w].pc = t,
            Ok(Flow::Barrier) => {
                self.waves[w].pc = next;
                self.waves[w].state = WaveState::AtBarrier;
                self.try_release(s);
                if let Some(dl) = self.deadlock_in(s, false) {
                    return Some(Event::Deadlock(dl));
                }
            }
            Ok(Flow::Break) => {
                if self.break_is_fault {
                    return Some(self.fault(w, FaultKind::Break, 0, None, 0, Some(d)));
                }
                self.waves[w].pc = next;
                return Some(Event::Break { wave: w, pc });
            }
            Ok(Flow::End) => {
                self.waves[w].pc = next;
                self.waves[w].state = WaveState::Exited;
                return self.on_exit(s);
            }
            Err(e) => return Some(self.fault(w, e.kind, e.lanes, e.addr, e.len, Some(d))),
        }
        None
    }

    fn on_exit(&mut self, s: usize) -> Option<Event> {
        if let Some(dl) = self.deadlock_in(s, false) {
            return Some(Event::Deadlock(dl));
        }
        let wpg = self.waves_per_group();
        if self.waves[s * wpg..(s + 1) * wpg]
            .iter()
            .all(|w| w.state == WaveState::Exited)
        {
            self.stats.workgroups_finished += 1;
            self.dispatch(s);
        }
        self.finished().then_some(Event::Finished)
    }

    fn fault(
        &mut self,
        w: usize,
        kind: FaultKind,
        lanes: u32,
        addr: Option<u64>,
        len: u32,
        d: Option<Decoded>,
    ) -> Event {
        let wave = &mut self.waves[w];
        wave.state = WaveState::Faulted;
        Event::Fault(Fault {
            kind,
            wave: wave.id,
            workgroup: wave.workgroup,
            lanes,
            pc: wave.pc,
            addr,
            len,
            instr: d.map(|d| d.instr.text(wave.pc)),
        })
    }

    /// Runs until an event, or until `limit` more instructions have executed (`None`).
    pub fn run(&mut self, limit: Option<u64>) -> Option<Event> {
        let stop_at = limit.map(|l| self.stats.wave_instructions.saturating_add(l));
        loop {
            if stop_at.is_some_and(|s| self.stats.wave_instructions >= s) {
                return None;
            }
            if let Some(e) = self.step() {
                return Some(e);
            }
        }
    }
}

/// Why a debugger memory access failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// Global memory not allocated.
    #[error("{addr:#x}..{end:#x} is not allocated global memory")]
    Unmapped {
        /// First byte.
        addr: u64,
        /// One past the last byte.
        end: u64,
    },
    /// Outside the shared window or the lane's scratch.
    #[error("{space} {addr:#x}..{end:#x} is outside the {size}-byte window", space = space.name())]
    OutOfWindow {
        /// Space.
        space: Space,
        /// First byte.
        addr: u64,
        /// One past the last byte.
        end: u64,
        /// Window size.
        size: u64,
    },
    /// The wave's workgroup is not resident (finished).
    #[error("wave {0} is not resident")]
    NoWave(usize),
}

use crate::memory::Space;

impl Machine {
    fn window(
        &self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        n: u64,
    ) -> Result<(usize, u64), MemoryError> {
        if wave >= self.waves.len() {
            return Err(MemoryError::NoWave(wave));
        }
        let size = match space {
            Space::Shared => self.slots[self.slot_of(wave)].shared.len(),
            _ => self.launch.scratch_bytes as u64,
        };
        let end = addr.saturating_add(n);
        if end > size {
            return Err(MemoryError::OutOfWindow {
                space,
                addr,
                end,
                size,
            });
        }
        let off = if space == Space::Scratch {
            lane as u64 % 32 * size + addr
        } else {
            addr
        };
        Ok((self.slot_of(wave), off))
    }

    /// Reads memory as the debugger sees it: global addresses, the shared window of wave
    /// `wave`'s workgroup, or the scratch of lane `lane` of wave `wave`.
    pub fn read_space(
        &self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        out: &mut [u8],
    ) -> Result<(), MemoryError> {
        let n = out.len() as u64;
        match space {
            Space::Global => self.global.read(addr, out).ok_or(MemoryError::Unmapped {
                addr,
                end: addr.saturating_add(n),
            }),
            Space::Shared => {
                let (slot, off) = self.window(space, wave, lane, addr, n)?;
                self.slots[slot].shared.read(off, out);
                Ok(())
            }
            Space::Scratch => {
                let (_, off) = self.window(space, wave, lane, addr, n)?;
                self.waves[wave].scratch.read(off, out);
                Ok(())
            }
        }
    }

    /// Writes memory as [`Machine::read_space`] reads it.
    pub fn write_space(
        &mut self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        data: &[u8],
    ) -> Result<(), MemoryError> {
        let n = data.len() as u64;
        match space {
            Space::Global => self.global.write(addr, data).ok_or(MemoryError::Unmapped {
                addr,
                end: addr.saturating_add(n),
            }),
            Space::Shared => {
                let (slot, off) = self.window(space, wave, lane, addr, n)?;
                self.slots[slot].shared.write(off, data);
                Ok(())
            }
            Space::Scratch => {
                let (_, off) = self.window(space, wave, lane, addr, n)?;
                self.waves[wave].scratch.write(off, data);
                Ok(())
            }
        }
    }

    /// The index in [`Machine::waves`] of a resident wave by global id.
    pub fn wave_index(&self, id: u32) -> Option<usize> {
        self.waves.iter().position(|w| w.id == id)
    }
}
