//! The lane grid: which v registers it shows, scrolling to what a stop changed, lane
//! selection, and the lanes the last stop concerns (marked in the grid; a watchpoint's
//! lane is selected).

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::panes::FormatTarget;
use wavedbg_emulator::debug::{Reached, StopReason};
use wavedbg_emulator::isa::{OperandKind, RegFile};
use wavedbg_emulator::machine::wave::VREGS;
use wavedbg_emulator::machine::{CodeWord, Machine};

use super::input::Motion;
use super::state::App;

/// The lane grid's state: which v registers it can show and how far it is scrolled
/// through them. (The lanes shown follow the selected lane, which the engine keeps.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LanesPane {
    /// The v register numbers the grid shows, in order (`lanes v1 v4-v6` sets them; by
    /// default the ones the kernel names).
    pub regs: Vec<usize>,
    /// Index into `regs` of the first register shown (clamped when drawn: see
    /// [`LanesPane::start`]).
    pub offset: usize,
}

impl LanesPane {
    /// The v registers shown first-to-last in the lane grid for `count` columns: from the
    /// scroll position, or fewer back from the end so that the columns stay filled.
    pub fn shown(&self, count: usize) -> &[usize] {
        let start = self.start(count);
        let end = (start + count).min(self.regs.len());
        &self.regs[start..end]
    }

    /// The index in `regs` of the first register shown for `count` columns.
    pub fn start(&self, count: usize) -> usize {
        let n = self.regs.len();
        self.offset
            .min(n.saturating_sub(1))
            .min(n.saturating_sub(count.max(1)))
    }
}

/// How many lanes PgUp and PgDn move in the lane grid: a group of 8, as the grid and the
/// EXEC bitmap group them.
const LANE_PAGE: usize = 8;

impl App {
    /// After a stop, scrolls the lane grid to the first changed register if none of the
    /// registers shown changed (so stepping shows what the instruction wrote).
    pub(super) fn show_changed_regs(&mut self) {
        let wi = self.engine.selected_wave;
        let (Some(w), Some(b)) = (
            self.engine.machine().waves.get(wi),
            self.baseline.waves.get(wi),
        ) else {
            return;
        };
        if w.id != b.id {
            return;
        }
        let changed = |r: usize| w.v[r] != b.v[r];
        let shown = self.hits.lane_regs.max(1);
        if self.lanes.shown(shown).iter().any(|&r| changed(r)) {
            return;
        }
        if let Some(i) = self.lanes.regs.iter().position(|&r| changed(r)) {
            self.lanes.offset = i;
        }
    }

    /// Lane grid keys: up and down select the previous or next lane (wrapping), PgUp and
    /// PgDn a group of 8 lanes away, Home/End the first or last lane; left and right
    /// scroll the registers (from the first one shown, as the grid keeps its columns
    /// filled); `f` cycles the number format. Returns whether the key was used.
    pub(super) fn lanes_key(&mut self, code: KeyCode) -> bool {
        if code == KeyCode::Char('f') {
            self.cycle_format(FormatTarget::Lanes);
            return true;
        }
        let shown = self.hits.lane_regs.max(1);
        let start = self.lanes.start(shown);
        let last = self.lanes.regs.len().saturating_sub(shown);
        match Motion::of(code) {
            Some(Motion::Left) => self.lanes.offset = start.saturating_sub(1),
            Some(Motion::Right) => self.lanes.offset = (start + 1).min(last),
            Some(_) if self.is_running() => self.refuse_busy(),
            Some(Motion::Down) => self.select_lane_by(1),
            Some(Motion::Up) => self.select_lane_by(-1),
            Some(m) => {
                let lane = m.apply(usize::from(self.engine.selected_lane), LANE_PAGE, 32);
                self.select_lane(lane as u8);
            }
            None => return false,
        }
        true
    }

    /// The selected wave's lanes that the last stop concerns.
    pub fn stop_lanes(&self) -> StopLanes {
        let mut out = StopLanes::default();
        let Some(stop) = self.engine.last_stop() else {
            return out;
        };
        let Some(id) = self
            .engine
            .machine()
            .waves
            .get(self.engine.selected_wave)
            .map(|w| w.id)
        else {
            return out;
        };
        let here = stop.wave_id == Some(id);
        match &stop.reason {
            StopReason::Breakpoint { lanes, .. } if here => out.breakpoint = *lanes,
            StopReason::Watchpoint(hits) if here => {
                out.watch = hits.iter().fold(0, |a, h| a | h.lanes);
            }
            StopReason::Fault(f) if f.wave == id => out.fault = f.lanes,
            StopReason::Reached(Reached::Finding { lanes, .. }) if here => out.finding = *lanes,
            StopReason::Finding(found) => {
                for f in found {
                    for site in std::iter::once(&f.at).chain(f.other.as_ref()) {
                        if site.wave == id {
                            out.finding |= site.lanes;
                        }
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// Selects lane `lane` (0-31) with a `lane` command; nothing for the selected lane or
    /// one out of range.
    pub fn select_lane(&mut self, lane: u8) {
        if lane < 32 && lane != self.engine.selected_lane {
            self.submit_commands(vec![Command::Lane(u32::from(lane))]);
        }
    }

    /// Selects the lane `delta` places on from the selected one, wrapping around 32.
    pub(super) fn select_lane_by(&mut self, delta: i32) {
        let l = (self.engine.selected_lane as i32 + delta).rem_euclid(32) as u8;
        self.select_lane(l);
    }
}

/// The selected wave's lanes that the last stop concerns, by kind (bit masks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StopLanes {
    /// The lanes for which the breakpoint's condition held (or that were active).
    pub breakpoint: u32,
    /// The lanes that touched a watched range.
    pub watch: u32,
    /// The lanes that faulted (the fault's lane mask).
    pub fault: u32,
    /// The lanes of a sanitizer finding (either side).
    pub finding: u32,
}

/// The v registers the kernel's instructions name, in order (every register if they name
/// none), from the decoded operands: a tuple operand (`v[4:5]`) names each of its
/// registers.
pub(super) fn kernel_vregs(m: &Machine) -> Vec<usize> {
    let mut used = [false; VREGS];
    for word in m.code() {
        let CodeWord::Instr(d) = word else { continue };
        for op in &d.instr.def().operands {
            if let OperandKind::Reg {
                file: RegFile::Vector,
                count,
            } = op.kind
            {
                let first = d.instr.get(op.slot);
                for r in first..first + i64::from(count) {
                    if let Some(u) = usize::try_from(r).ok().and_then(|r| used.get_mut(r)) {
                        *u = true;
                    }
                }
            }
        }
    }
    let regs: Vec<usize> = (0..VREGS).filter(|r| used[*r]).collect();
    if regs.is_empty() {
        (0..VREGS).collect()
    } else {
        regs
    }
}

/// Parses `v1 v4 v9-v12` (empty: every register).
pub(super) fn parse_regs(text: &str) -> Result<Vec<usize>, String> {
    if text.trim().is_empty() {
        return Ok((0..VREGS).collect());
    }
    let reg = |s: &str| -> Result<usize, String> {
        s.trim()
            .strip_prefix('v')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < VREGS)
            .ok_or_else(|| format!("lanes: `{s}` is not a v register (v0-v{})", VREGS - 1))
    };
    let mut out = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == ',') {
        if word.is_empty() {
            continue;
        }
        match word.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (reg(a)?, reg(b)?);
                out.extend(a.min(b)..=a.max(b));
            }
            None => out.push(reg(word)?),
        }
    }
    Ok(out)
}

/// `regs` as `lanes` takes them (`v1 v4 v5`), or `all v registers`.
pub(super) fn regs_text(regs: &[usize]) -> String {
    if regs.len() == VREGS {
        return "all v registers".into();
    }
    regs.iter()
        .map(|r| format!("v{r}"))
        .collect::<Vec<_>>()
        .join(" ")
}
