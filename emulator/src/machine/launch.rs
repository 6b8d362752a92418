//! Setting up a launch: the options beyond the kernel's own, their limits, the kernel's
//! arguments in uniform registers, and dispatching workgroups into resident slots.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::scheduler::SplitMix64;
use super::{Machine, Slot, Stats};
use crate::code::decode_code;
use crate::exec::fast::FastCode;
use crate::memory::{BufferDescriptor, GlobalMemory, PagedBytes};
use crate::program::{ArgValue, Program};
use crate::wave::{self, Wave};

/// Launch settings beyond the kernel's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchOptions {
    /// Overrides the kernel's `.grid`: workgroups in the launch (`Some(0)` is rejected).
    pub grid: Option<u32>,
    /// Overrides the kernel's `.workgroup`: lanes per workgroup, a multiple of 32 from 32
    /// to [`crate::program::MAX_WORKGROUP_LANES`] (else [`LaunchError::Shape`]).
    pub workgroup_lanes: Option<u32>,
    /// Scheduling seed; 0 is plain round-robin, any other value seeds the SplitMix64 draws
    /// of the next wave and of each quantum.
    pub seed: u64,
    /// Instructions a wave runs before the scheduler moves on (0 counts as 1); with a
    /// non-zero seed each quantum is drawn from 1..=2*quantum instead.
    pub quantum: u32,
    /// Workgroups resident at once (clamped to 1..=grid; times the waves per workgroup it
    /// must not exceed [`MAX_RESIDENT_WAVES`]); the next is dispatched when one finishes.
    pub resident_workgroups: u32,
    /// Launch-wide budget of wave-instructions (summed over all waves) before a
    /// BudgetExhausted fault (`None`: unlimited).
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
    /// The grid, workgroup size or residency is out of the machine's limits (the text
    /// says which and why).
    #[error("invalid launch: {0}")]
    Shape(String),
    /// The program is not a valid kernel.
    #[error(transparent)]
    Program(#[from] crate::program::ProgramError),
}

/// Most waves resident at once (resident workgroups x waves per workgroup): the register
/// files of this many waves take 64 MiB.
pub const MAX_RESIDENT_WAVES: u32 = 4096;

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

impl Machine {
    /// Sets up a launch: allocates buffers, creates the first resident workgroups.
    pub fn new(program: &Program, options: LaunchOptions) -> Result<Machine, LaunchError> {
        Machine::new_part(program, options, None)
    }

    /// [`Machine::new`] for workgroups `first..end` of the grid only (`None`: all of
    /// it), each with the ids, registers and memory it has in the whole launch.
    pub(super) fn new_part(
        program: &Program,
        options: LaunchOptions,
        part: Option<(u32, u32)>,
    ) -> Result<Machine, LaunchError> {
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
        let part = part
            .map(|(first, end)| (first.min(launch.grid), end.min(launch.grid)))
            .filter(|(first, end)| first < end)
            .unwrap_or((0, launch.grid));
        let resident = options.resident_workgroups.max(1).min(part.1 - part.0);
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
        let code = decode_code(&program.code);
        let mut m = Machine {
            program: Arc::new(program.clone()),
            fast: Arc::new(FastCode::new(&code)),
            code: Arc::new(code),
            launch,
            options,
            global,
            buffer_bases,
            initial_u,
            waves: Vec::new(),
            slots: Vec::new(),
            retired: None,
            next_workgroup: part.0,
            part,
            ended: 0,
            deadlocks_named: Vec::new(),
            touched: Default::default(),
            wave_slots: (0..resident * launch.waves_per_workgroup())
                .map(|w| w / launch.waves_per_workgroup())
                .collect(),
            lanes_of: (u32::MAX, 32),
            turns_backoff: 0,
            rng: (options.seed != 0).then_some(SplitMix64(options.seed)),
            current: 0,
            left: 0,
            stats: Stats::default(),
            break_is_fault: true,
            accesses: None,
            break_at: Vec::new(),
            skip_break: None,
            stop_before: None,
            sanitizer: None,
            ran: Vec::new(),
            retired_writes: Vec::new(),
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

    /// Keeps the lines the workgroup in slot `s` (`wpg` waves) wrote in this epoch, in its
    /// shared memory and its waves' scratch, before a dispatch replaces them (time
    /// travel's index, [`Machine::written_since`]).
    fn keep_retired_writes(&mut self, s: usize, wpg: usize) {
        let Machine {
            slots,
            waves,
            retired_writes,
            ..
        } = self;
        if let Some(slot) = slots.get(s) {
            for (page, lines) in slot.shared.written_this_epoch() {
                retired_writes.push((1, page as u64 * 4096, lines));
            }
        }
        for w in waves.iter().skip(s * wpg).take(wpg) {
            for (page, lines) in w.scratch.written_this_epoch() {
                retired_writes.push((2, page as u64 * 4096, lines));
            }
        }
    }

    /// Creates the next workgroup in slot `s` (or leaves the slot empty).
    pub(super) fn dispatch(&mut self, s: usize) {
        let wpg = self.waves_per_group();
        let scratch = self.launch.scratch_bytes;
        if self.next_workgroup >= self.part.1 {
            self.slots[s].workgroup = None;
            return;
        }
        let wg = self.next_workgroup;
        self.next_workgroup += 1;
        if !self.ran.is_empty() {
            self.keep_retired_writes(s, wpg);
        }
        self.slots[s] = Slot {
            workgroup: Some(wg),
            shared: PagedBytes::zeroed(self.launch.shared_bytes as u64),
        };
        let mut retired = Vec::new();
        for i in 0..wpg {
            let mut w = Wave::new(wg * wpg as u32 + i as u32, wg, i as u32, scratch);
            w.u = self.initial_u;
            let idx = s * wpg + i;
            self.touch(idx);
            if idx < self.waves.len() {
                retired.push(std::mem::replace(&mut self.waves[idx], w));
            } else {
                self.waves.push(w);
            }
            self.stats.waves_launched += 1;
        }
        if !retired.is_empty() {
            self.retired = Some(retired.into());
        }
    }
}
