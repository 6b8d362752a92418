//! Sanitizer findings as text: what was found, and each side with wave, lanes, PC,
//! instruction and source line. The text is the debugger's, so it sits here rather than
//! beside the detectors: it quotes instructions and source lines as every view does.

use std::fmt::Write;

use super::lines::SourcePlace;
use super::view::{count, instr_text, pc_text, ranges_text};
use crate::check::{
    FenceAtomic, Finding, FindingKind, MemAccess, MissingFence, Severity, Site, SourceWrite,
    WaveLanes,
};
use crate::fault::lanes_text;
use crate::isa::RegFile;
use crate::machine::Machine;

/// The kernel's source text, to quote the lines of a finding's instructions.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// The file name as reports print it (`name:line`).
    pub name: &'a str,
    /// The whole file; line `n` of a report is its `n`-th line, counted from 1.
    pub text: &'a str,
}

impl Finding {
    /// The finding as a report prints it: a headline, then one line per side (wave,
    /// lanes, PC, instruction, `file:line` and the higher-level `file:line` where the
    /// kernel has a line table), with the source line quoted when `source` is given.
    pub fn describe(&self, m: &Machine, source: Option<Source<'_>>) -> String {
        let mut s = format!(
            "{}: {}",
            match self.kind.severity() {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            self.headline_in(m)
        );
        if self.count > 1 {
            let _ = write!(s, " ({} times)", self.count);
        }
        let (first, second) = self.roles();
        s.push('\n');
        s.push_str(&site_line(m, first, &self.at, source));
        if let (Some(o), Some(role)) = (&self.other, second) {
            s.push('\n');
            s.push_str(&site_line(m, role, o, source));
            // The atomics of a release/acquire with a missing half.
            let (release, acquire) = self.fence.map_or((None, None), MissingFence::atomics);
            // Each names the wave that executed it, not always a side's; an unretired
            // acquire fence is named as itself, not as an atomic access.
            let fence = matches!(self.fence, Some(MissingFence::AcquireNotRetired { .. }));
            for (role, by) in [("release", release), ("acquire", acquire)] {
                if let Some(by) = by {
                    let atomic = Site {
                        pc: by.pc,
                        wave: by.wave,
                        workgroup: by.workgroup,
                        lanes: 0,
                        access: (!fence).then_some(MemAccess::Atomic),
                        epoch: None,
                    };
                    s.push('\n');
                    s.push_str(&site_line(m, role, &atomic, source));
                }
            }
        }
        if let Some(written) = &self.written {
            s.push_str(&self.written_text(m, written, source));
        }
        // The other waves of each side, labelled by the side when the two sides can be
        // different waves'.
        let lists = [
            (first, &self.also),
            (second.unwrap_or(""), &self.also_other),
        ];
        for (role, list) in lists {
            if list.is_empty() {
                continue;
            }
            let label = if self.kind.sides_in_two_waves() {
                role
            } else {
                "in"
            };
            let _ = write!(s, "\n  also {label}: {}", waves_lanes_text(list));
        }
        if !self.waves.is_empty() {
            let waves: Vec<String> = self
                .waves
                .iter()
                .map(|w| {
                    format!(
                        "wave {} {} at {}",
                        w.wave,
                        w.state.name(),
                        super::view::addr_text(w.pc)
                    )
                })
                .collect();
            let _ = write!(s, "\n  waves: {}", waves.join(", "));
        }
        s
    }

    /// One line: what was found and on what (atomics named by PC).
    pub fn headline(&self) -> String {
        self.headline_with(&|_| None)
    }

    /// [`Finding::addrs`] as headlines list them: "at least " when the list is full, how
    /// many, the space's name, and the addresses (the first three and the last past 8).
    fn addrs_text(&self) -> (&'static str, usize, &'static str, String) {
        let space = self.space.map_or("memory", |x| x.name());
        let n = self.addrs.len();
        let at_least = if n >= crate::check::FINDING_LIST_MAX {
            "at least "
        } else {
            ""
        };
        let hex: Vec<String> = self.addrs.iter().map(|a| format!("{a:#x}")).collect();
        let list = if n <= 8 {
            hex.join(", ")
        } else {
            format!("{}, ..., {}", hex[..3].join(", "), hex[n - 1])
        };
        (at_least, n, space, list)
    }

    /// [`Finding::unwritten`] as headlines list it: each range `0x1-0x3` (one byte
    /// `0x1`), the first three and the last past 8, "and more" when the list is full.
    fn unwritten_text(&self) -> String {
        let list: Vec<String> = self
            .unwritten
            .iter()
            .map(|r| match r.len {
                0 | 1 => format!("{:#x}", r.addr),
                n => format!("{:#x}-{:#x}", r.addr, r.addr.saturating_add(n - 1)),
            })
            .collect();
        let n = list.len();
        let mut text = if n <= 8 {
            list.join(", ")
        } else {
            format!("{}, ..., {}", list[..3].join(", "), list[n - 1])
        };
        if n >= crate::check::FINDING_LIST_MAX {
            text.push_str(" and more");
        }
        text
    }

    /// The headline as `m`'s kernel names its atomics: by source line where it has one.
    pub fn headline_in(&self, m: &Machine) -> String {
        self.headline_with(&|pc| m.program().line_at(pc))
    }

    /// The headline, naming atomics by their source line where `line` knows it.
    fn headline_with(&self, line: &dyn Fn(u64) -> Option<u32>) -> String {
        let reg = self.reg.map(|(f, r)| {
            format!(
                "{}{r}",
                match f {
                    RegFile::Vector => 'v',
                    RegFile::Uniform => 'u',
                }
            )
        });
        let reg = reg.unwrap_or_default();
        let mem = match (self.space, self.addr) {
            (Some(space), Some(a)) => {
                format!(
                    "{}:{a:#x} ({})",
                    space.name(),
                    count(self.len as u64, "byte")
                )
            }
            _ => String::new(),
        };
        let counter = self.counter.map_or("", |c| c.name());
        match self.kind {
            FindingKind::Race => {
                let line_of = |pc: u64| match line(pc) {
                    Some(n) => format!("line {n}"),
                    None => super::view::addr_text(pc),
                };
                let between = if let Some(MissingFence::NotRetired { barrier, .. }) = self.fence {
                    format!(
                        "in workgroup {}, across the barrier at {} (epochs {} and {})",
                        self.at.workgroup,
                        line_of(barrier),
                        self.other.and_then(|o| o.epoch).unwrap_or(0),
                        self.at.epoch.unwrap_or(0)
                    )
                } else if self.other.is_some_and(|o| o.workgroup != self.at.workgroup) {
                    format!(
                        "between workgroups {} and {}",
                        self.other.map_or(0, |o| o.workgroup),
                        self.at.workgroup
                    )
                } else {
                    format!(
                        "in workgroup {}, no barrier between (epoch {})",
                        self.at.workgroup,
                        self.at.epoch.unwrap_or(0)
                    )
                };
                let atomic = |a: FenceAtomic| match line(a.pc) {
                    Some(n) => format!("the atomic at line {n}"),
                    None => format!("the atomic at {}", super::view::addr_text(a.pc)),
                };
                let fence = match self.fence {
                    None => String::new(),
                    Some(MissingFence::Synchronisation) => {
                        ": no atomic synchronises them (release, then acquire)".to_string()
                    }
                    Some(MissingFence::Release { atomic: a }) => {
                        format!(": no release before {}", atomic(a))
                    }
                    Some(MissingFence::Acquire { atomic: a }) => {
                        format!(": no acquire after {}", atomic(a))
                    }
                    Some(MissingFence::ReleaseAndAcquire { release, acquire }) => format!(
                        ": no release before {}, no acquire after {}",
                        atomic(release),
                        atomic(acquire)
                    ),
                    Some(MissingFence::ReadBeforeRelease {
                        release,
                        acquire,
                        acquired,
                    }) => format!(
                        ": {} read its address before {} released the access (nothing waited for the release){}",
                        atomic(acquire),
                        atomic(release),
                        if acquired {
                            ""
                        } else {
                            ", and no acquire followed it"
                        }
                    ),
                    Some(MissingFence::NotRetired { counter, .. }) => format!(
                        ": the earlier access was not retired before its wave reached the barrier (no wait.{} retired it first), and a barrier orders only retired accesses",
                        counter.name()
                    ),
                    Some(MissingFence::AcquireNotRetired {
                        fence,
                        barrier: None,
                    }) => format!(
                        ": the acquire fence at {} was not retired before this access (no wait.vm retired it first; only a load or returning atomic on its vm counter completes after it without one)",
                        line_of(fence.pc)
                    ),
                    Some(MissingFence::AcquireNotRetired {
                        fence,
                        barrier: Some(barrier),
                    }) => format!(
                        ": the acquire fence at {} (wave {}) was not retired before its wave reached the barrier at {} (no wait.vm retired it first), and a barrier passes on only retired fences",
                        line_of(fence.pc),
                        fence.wave,
                        line_of(barrier)
                    ),
                    Some(MissingFence::GenerationBound) => format!(
                        ": the earlier wave passed {} release generations, which the sanitizer's records tell apart only modulo that, so the release that orders them may not have been seen (this report may be false; docs/sanitizer.md)",
                        crate::check::GENERATIONS
                    ),
                    Some(MissingFence::Bound) => format!(
                        ": the sanitizer's release/acquire clocks passed their bound of {} waves, so the fences that would order them may not have been seen (this report may be false; docs/sanitizer.md)",
                        crate::check::CLOCK_WAVES
                    ),
                };
                format!("data race on {mem} {between}{fence}")
            }
            FindingKind::SameInstruction if self.addrs.len() > 1 => {
                let (at_least, n, space, list) = self.addrs_text();
                format!(
                    "lanes {} of one store write different values to {at_least}{n} places of {space} ({list}; {} each; the last lane wins at each)",
                    lanes_text(self.at.lanes),
                    count(self.len as u64, "byte")
                )
            }
            FindingKind::SameInstruction => format!(
                "lanes {} of one store write different values to {mem} (the last lane wins)",
                lanes_text(self.at.lanes)
            ),
            FindingKind::ReadBeforeWait => format!(
                "{reg} is read before wait.{counter} retires the load that writes it (undefined on hardware)"
            ),
            FindingKind::WriteBeforeWait => format!(
                "{reg} is overwritten before wait.{counter} retires the load that writes it (the load may land after)"
            ),
            FindingKind::StoreDataOverwritten => format!(
                "{reg} holds the data of a store not yet retired by wait.{counter}, and is overwritten"
            ),
            FindingKind::UninitMemory if self.addrs.len() > 1 && !self.unwritten.is_empty() => {
                let (at_least, n, space, list) = self.addrs_text();
                format!(
                    "{at_least}{n} words of {space} ({list}; {} each) are read before anything wrote their bytes {} in this launch (the other bytes were written)",
                    count(self.len as u64, "byte"),
                    self.unwritten_text()
                )
            }
            FindingKind::UninitMemory if self.addrs.len() > 1 => {
                let (at_least, n, space, list) = self.addrs_text();
                format!(
                    "{at_least}{n} words of {space} ({list}; {} each) are read before anything wrote them in this launch",
                    count(self.len as u64, "byte")
                )
            }
            FindingKind::UninitMemory if !self.unwritten.is_empty() => format!(
                "{mem} is read before anything wrote its byte{} {} in this launch (the other bytes were written)",
                if self.unwritten.len() == 1 && self.unwritten[0].len == 1 {
                    ""
                } else {
                    "s"
                },
                self.unwritten_text()
            ),
            FindingKind::UninitMemory => {
                format!("{mem} is read before anything wrote it in this launch")
            }
            // A uniform register has one value for the wave: no lanes to name.
            FindingKind::UninitRegister
                if matches!(self.reg, Some((RegFile::Uniform, _))) =>
            {
                format!("{reg} is read before it was written")
            }
            FindingKind::UninitRegister => format!(
                "{reg} is read before it was written (lane{} {})",
                if self.at.lanes.count_ones() == 1 { "" } else { "s" },
                lanes_text(self.at.lanes)
            ),
            FindingKind::BarrierDivergence
                if self.other.is_some_and(|o| o.lanes == 0) =>
            {
                format!(
                    "wave {} passed a barrier with no active lanes (EXEC 0): lane{} {} skipped it, and rejoin here",
                    self.at.wave,
                    if self.at.lanes.count_ones() == 1 { "" } else { "s" },
                    lanes_text(self.at.lanes),
                )
            }
            FindingKind::BarrierDivergence => format!(
                "lane{} {} skipped a barrier the rest of wave {} waited at, and rejoin it",
                if self.at.lanes.count_ones() == 1 { "" } else { "s" },
                lanes_text(self.at.lanes),
                self.at.wave
            ),
            FindingKind::BarrierMismatch => {
                // Named in code order, whichever wave arrived last.
                let mut pcs = [self.at.pc, self.other.map_or(self.at.pc, |o| o.pc)];
                pcs.sort_unstable();
                let places = match (line(pcs[0]), line(pcs[1])) {
                    (Some(a), Some(b)) => format!("lines {a} and {b}"),
                    _ => format!(
                        "{} and {}",
                        super::view::addr_text(pcs[0]),
                        super::view::addr_text(pcs[1])
                    ),
                };
                format!(
                    "the waves of workgroup {} were released together from barriers at different PCs ({places}): a barrier counts the waves that arrive wherever they wait, so the waves at one go on when those at the other arrive; that is right where the code pairs them on purpose (wave-specialised code), otherwise one barrier where the paths join was meant",
                    self.at.workgroup,
                )
            }
            FindingKind::BarrierDeadlock => format!(
                "a barrier of workgroup {} can never complete: waves exited or faulted",
                self.at.workgroup
            ),
            FindingKind::InactiveLaneRead => {
                let from = self.other.map_or(0, |o| o.lanes);
                format!(
                    "lane{} {} read {reg} of lane{} {}, inactive here: the value is whatever {} last held (a cross-lane read ignores EXEC)",
                    if self.at.lanes.count_ones() == 1 { "" } else { "s" },
                    lanes_text(self.at.lanes),
                    if from.count_ones() == 1 { "" } else { "s" },
                    lanes_text(from),
                    if from.count_ones() == 1 { "that lane" } else { "those lanes" },
                )
            }
        }
    }

    /// The names of its two sides, as reports label them (`now` and `before` for a race,
    /// `at` and `issued` for a hazard...); the second is `None` for one-sided findings.
    pub fn roles(&self) -> (&'static str, Option<&'static str>) {
        match self.kind {
            FindingKind::Race => ("now", Some("before")),
            FindingKind::SameInstruction
            | FindingKind::UninitMemory
            | FindingKind::UninitRegister => ("at", None),
            FindingKind::ReadBeforeWait
            | FindingKind::WriteBeforeWait
            | FindingKind::StoreDataOverwritten => ("at", Some("issued")),
            FindingKind::BarrierDivergence => ("rejoin", Some("barrier")),
            FindingKind::BarrierMismatch => ("barrier", Some("other")),
            FindingKind::BarrierDeadlock => ("waiting", Some("gone")),
            FindingKind::InactiveLaneRead => ("reads", Some("source")),
        }
    }
}

/// Other waves of a finding's side, each with its lanes, the waves of the same lanes
/// together as ranges: "waves 1-30, 32 lane 31; wave 40 lanes 0-1" (a grid of waves
/// hitting one instruction alike is one entry, not one per wave).
fn waves_lanes_text(list: &[WaveLanes]) -> String {
    // Lane masks in order of first appearance, each with its waves.
    // (A side lists each wave once.)
    let mut groups: Vec<(u32, Vec<u64>)> = Vec::new();
    for w in list {
        match groups.iter_mut().find(|g| g.0 == w.lanes) {
            Some(g) => g.1.push(w.wave.into()),
            None => groups.push((w.lanes, vec![w.wave.into()])),
        }
    }
    let parts: Vec<String> = groups
        .into_iter()
        .map(|(lanes, waves)| {
            format!(
                "wave{} {} lane{} {}",
                if waves.len() == 1 { "" } else { "s" },
                ranges_text(&waves),
                if lanes.count_ones() == 1 { "" } else { "s" },
                lanes_text(lanes)
            )
        })
        .collect();
    parts.join("; ")
}

impl Finding {
    /// Where a read of inactive lanes' source values were last written: a line per
    /// write (lanes, wave, PC, instruction, `file:line`, the count `goto` takes), then the
    /// source lanes nothing wrote.
    fn written_text(
        &self,
        m: &Machine,
        written: &[SourceWrite],
        source: Option<Source<'_>>,
    ) -> String {
        let mut s = String::new();
        for w in written {
            let site = Site {
                wave: w.wave,
                lanes: w.lanes,
                pc: w.pc,
                ..self.at
            };
            let line = site_line(m, "written", &site, source);
            // The count goes on the instruction's line, before a quoted source line.
            let (first, quoted) = line.split_once('\n').unwrap_or((&line, ""));
            let _ = write!(
                s,
                "\n{first}, instruction {} (goto {})",
                w.count + 1,
                w.count
            );
            if !quoted.is_empty() {
                let _ = write!(s, "\n{quoted}");
            }
        }
        let named = written.iter().fold(0, |a, w| a | w.lanes);
        let unwritten = self.other.map_or(0, |o| o.lanes) & !named;
        if unwritten != 0 {
            let _ = write!(
                s,
                "\n  never   lane{} {}: not written before this read in this launch",
                if unwritten.count_ones() == 1 { "" } else { "s" },
                lanes_text(unwritten)
            );
        }
        s
    }
}

fn site_line(m: &Machine, role: &str, site: &Site, source: Option<Source<'_>>) -> String {
    let epoch = site
        .epoch
        .map(|e| format!(", epoch {e}"))
        .unwrap_or_default();
    let mut s = format!(
        "  {role:<7} wave {} (workgroup {}{epoch})",
        site.wave, site.workgroup
    );
    if site.lanes != 0 {
        let _ = write!(
            s,
            " lane{} {}",
            if site.lanes.count_ones() == 1 {
                ""
            } else {
                "s"
            },
            lanes_text(site.lanes)
        );
    }
    if let Some(a) = site.access {
        let _ = write!(s, " {}", a.name());
    }
    let _ = write!(s, " at {}: {}", pc_text(m, site.pc), instr_text(m, site.pc));
    // The higher-level line goes next to the assembly's, where the kernel has a line table.
    let high = SourcePlace::at(m.program(), site.pc);
    let line = m.program().line_at(site.pc);
    if let Some(line) = line {
        let file = source
            .map(|x| x.name)
            .or(m.program().source.as_deref())
            .unwrap_or(&m.program().name);
        let _ = match &high {
            Some(h) => write!(s, "  ({file}:{line}, {h})"),
            None => write!(s, "  ({file}:{line})"),
        };
    } else if let Some(h) = &high {
        let _ = write!(s, "  ({h})");
    }
    if let Some(text) = line.and_then(|l| source?.text.lines().nth((l as usize).checked_sub(1)?)) {
        let _ = write!(s, "\n          | {}", text.trim());
    }
    s
}
