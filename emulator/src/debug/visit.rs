//! `finding N`: visiting a sanitizer finding with time travel. The first side is the
//! instruction the finding was made at; the second is the other side's instruction (the
//! earlier access of a race, the load that issued, the barrier skipped...), found by
//! searching the record back from the first for the last time that wave executed it; for
//! a read of inactive lanes, the last write of the source lanes' register
//! (docs/sanitizer.md, "Visiting a finding").

use super::stop::Reached;
use super::{Engine, EngineError, StopEvent, StopReason};
use crate::check::{Finding, FindingKind};
use crate::fault::lanes_text;

/// Which side of a finding `finding N` goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FindingSide {
    /// Where the finding was made (`info findings`' first line: `now`, `at`, `reads`...).
    First,
    /// Its other side (`before`, `issued`, `barrier`...; for a read of inactive lanes,
    /// the last write of the values read).
    Second,
}

impl FindingSide {
    /// Its word in `finding N first|second`.
    pub const fn word(self) -> &'static str {
        match self {
            FindingSide::First => "first",
            FindingSide::Second => "second",
        }
    }

    /// The side's name in finding `f`, as `info findings` labels it (`now`, `before`,
    /// `reads`, `source`...); a one-sided finding's only side names both.
    pub fn role(self, f: &Finding) -> &'static str {
        let (first, second) = f.roles();
        match self {
            FindingSide::First => first,
            FindingSide::Second => second.unwrap_or(first),
        }
    }

    /// The side a word names.
    pub fn parse(word: &str) -> Option<FindingSide> {
        match word {
            "first" => Some(FindingSide::First),
            "second" => Some(FindingSide::Second),
            _ => None,
        }
    }
}

/// Why `finding N` could not go where asked; the machine has not moved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VisitError {
    /// No finding N in `info findings`.
    #[error("no finding number {number} ({})", findings_hint(*.count, *.checking, *.ran))]
    NoFinding {
        /// The number asked for.
        number: u64,
        /// How many findings `info findings` lists (at the end of the recorded history).
        count: usize,
        /// Whether a detector is on (the hint then says to run, not to turn them on).
        checking: bool,
        /// How far the launch ran (the hint says to run only when there is more to run).
        ran: Ran,
    },
    /// The second side of a finding with one side (`finding N second`).
    #[error("finding {0} has one side (`finding {0}` goes to it)")]
    OneSided(u64),
    /// A side whose instruction the recorded history does not hold.
    #[error("the {role} side of finding {number} is not in the recorded history")]
    SideNotFound {
        /// The finding's number.
        number: u64,
        /// The side's name, as `info findings` labels it (`before`, `issued`...).
        role: &'static str,
    },
    /// The second side of a read of inactive lanes whose values nothing wrote.
    #[error("finding {number}: v{reg} of lane{} {} was not written before the read in the recorded history (no write to go to)", if .lanes.count_ones() == 1 { "" } else { "s" }, lanes_text(*.lanes))]
    SourceNotWritten {
        /// The finding's number.
        number: u64,
        /// The vector register read.
        reg: u8,
        /// The source lanes (bit per lane).
        lanes: u32,
    },
    /// The search of the record was refused or interrupted.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// How far the launch has run, for the hint of a finding number out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ran {
    /// Not an instruction yet.
    NotYet,
    /// Some of it: there is more to run.
    Partly,
    /// To its end (every wave exited).
    ToTheEnd,
}

fn findings_hint(count: usize, checking: bool, ran: Ran) -> String {
    match (count, ran) {
        (0, Ran::ToTheEnd) if checking => {
            "no findings: the launch ran as far as it goes and the detectors found nothing (`restart` to run it again)".to_string()
        }
        (0, Ran::Partly) if checking => {
            "no findings so far: continue to look for them in the rest of the launch".to_string()
        }
        (0, _) if checking => "no findings yet: run the kernel to look for them".to_string(),
        (0, _) => "no findings: `set check all on` and run to look for them".to_string(),
        (1, _) => "info findings lists 1".to_string(),
        (n, _) => format!("info findings lists 1-{n}"),
    }
}

impl Engine {
    /// How far the launch has run: in the past of the recorded history, at least partly.
    fn how_far_ran(&self) -> Ran {
        let m = self.machine();
        // A launch that cannot go on (deadlocked, or its instruction budget spent) has run
        // as far as `continue` takes it, as one that finished.
        let stuck = m.launch_deadlock().is_some() || self.budget_spent().is_some();
        if !self.history.in_past() && (m.finished() || stuck) {
            Ran::ToTheEnd
        } else if self.history.in_past() || m.stats.wave_instructions > 0 {
            Ran::Partly
        } else {
            Ran::NotYet
        }
    }

    /// The findings `info findings` numbers at the end of the recorded history: the
    /// machine's own at the end, those kept from there when it is in the past (whose
    /// findings are only the ones made before it: a prefix of these, numbered alike).
    pub fn recorded_findings(&self) -> &[Finding] {
        if self.history.in_past() {
            &self.findings_at_end
        } else {
            self.findings()
        }
    }

    /// `finding N [first|second]`: the machine right before the instruction of finding
    /// `number`'s first or second side (numbered as `info findings` lists them), its wave
    /// selected and the side's lanes reported. Without a side: the first, or the second
    /// when the machine is where the last `finding N` took it, at the first side (a repeat
    /// goes on to the other side, as gdb's repeated commands go on); a finding with one
    /// side, its one side again.
    pub fn visit_finding(
        &mut self,
        number: u64,
        side: Option<FindingSide>,
    ) -> Result<StopEvent, VisitError> {
        let all = self.recorded_findings();
        let f = usize::try_from(number)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| all.get(i))
            .cloned()
            .ok_or(VisitError::NoFinding {
                number,
                count: all.len(),
                checking: self.machine().checks().any(),
                ran: self.how_far_ran(),
            })?;
        let (first_role, second_role) = f.roles();
        // A repeat goes on to the other side, when there is one.
        let side = match side {
            Some(side) => side,
            None if second_role.is_none() => FindingSide::First,
            None => self.next_side(number),
        };
        if side == FindingSide::Second && second_role.is_none() {
            return Err(VisitError::OneSided(number));
        }
        let first = self.last_execution(f.at.wave, f.at.pc, f.first_at)?.ok_or(
            VisitError::SideNotFound {
                number,
                role: first_role,
            },
        )?;
        let reason = |lanes| {
            StopReason::Reached(Reached::Finding {
                number,
                side,
                lanes,
            })
        };
        if side == FindingSide::First {
            return Ok(self.travel_to(first, reason(f.at.lanes)));
        }
        let role = second_role.unwrap_or(first_role);
        let not_found = VisitError::SideNotFound { number, role };
        let other = f.other.ok_or(not_found.clone())?;
        match (f.kind, f.reg) {
            (FindingKind::InactiveLaneRead, Some((_, reg))) => {
                let writes = self.source_writes(f.at.wave, reg, other.lanes, first.count)?;
                let newest = writes.first().ok_or(VisitError::SourceNotWritten {
                    number,
                    reg,
                    lanes: other.lanes,
                })?;
                let x = self
                    .last_execution(newest.wave, newest.pc, newest.count + 1)?
                    .ok_or(not_found)?;
                Ok(self.travel_to(x, reason(newest.lanes)))
            }
            _ => {
                let x = self
                    .last_execution(other.wave, other.pc, first.count)?
                    .ok_or(not_found)?;
                Ok(self.travel_to(x, reason(other.lanes)))
            }
        }
    }

    /// The side a bare `finding N` goes to: the second when the last stop is `finding
    /// N`'s first side and the machine has not moved since; else the first.
    fn next_side(&self, number: u64) -> FindingSide {
        match self.last_stop() {
            Some(StopEvent {
                reason:
                    StopReason::Reached(Reached::Finding {
                        number: n,
                        side: FindingSide::First,
                        ..
                    }),
                instructions,
                ..
            }) if *n == number && *instructions == self.machine.stats.wave_instructions => {
                FindingSide::Second
            }
            _ => FindingSide::First,
        }
    }

    /// Fills in where a read of inactive lanes' source values were last written
    /// ([`Finding::written`]), from the record; left as it is for other findings, and
    /// when the search is interrupted.
    pub(super) fn name_source_writes(&self, f: &mut Finding) {
        let (FindingKind::InactiveLaneRead, Some((_, reg)), Some(other)) = (f.kind, f.reg, f.other)
        else {
            return;
        };
        // The read was the instruction that made the count `first_at`.
        let before = f.first_at.saturating_sub(1);
        if let Ok(w) = self.source_writes(f.at.wave, reg, other.lanes, before) {
            f.written = Some(w);
        }
    }
}
