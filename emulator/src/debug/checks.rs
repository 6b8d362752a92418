//! The sanitizer under the debugger: `set check`, `info findings`, and the findings a
//! stop reports (docs/sanitizer.md).

use super::findings::Source;
use super::Engine;
use crate::check::{CheckGroup, Checks, Finding};

impl Engine {
    /// The detectors that are on.
    pub fn checks(&self) -> Checks {
        self.checks
    }

    /// Turns a detector group on or off, from this point of the launch (and for every
    /// restart). A finding stops a run like a watchpoint, right after its instruction.
    pub fn set_check(&mut self, group: CheckGroup, on: bool) {
        self.checks.set(group, on);
        self.apply_checks();
    }

    /// Gives the machine the engine's detectors, recorded so time travel replays them.
    pub(super) fn apply_checks(&mut self) {
        if self.machine.checks() != self.checks {
            self.machine.set_checks(self.checks);
            self.record_checks(self.checks);
            self.edited = true;
        }
    }

    /// Every distinct finding so far in this launch, in the order first seen (time travel
    /// takes them back with the rest of the machine).
    pub fn findings(&self) -> &[Finding] {
        self.machine.sanitizer().map_or(&[], |s| s.findings())
    }

    /// The kernel's source, when the front end opened a readable source file (findings
    /// quote their lines).
    pub fn source(&self) -> Option<Source<'_>> {
        let (name, text) = self.source.as_ref()?;
        Some(Source { name, text })
    }

    /// The text of `info findings`: which detectors are on, then every finding with its
    /// number, the instruction count it was first seen at, and its description.
    pub fn findings_text(&self) -> String {
        let checks = self.checks;
        let found = self.findings();
        let mut s = format!(
            "Sanitizer: {}; {} finding{}.\n",
            if checks.any() {
                format!("{} on", checks.names())
            } else {
                "off (set check all on)".to_string()
            },
            found.len(),
            if found.len() == 1 { "" } else { "s" }
        );
        for (i, f) in found.iter().enumerate() {
            let mut f = f.clone();
            self.name_source_writes(&mut f);
            s.push_str(&format!(
                "#{} [count {}] {}\n",
                i + 1,
                f.first_at,
                f.describe(&self.machine, self.source())
            ));
        }
        // In the past: the findings made later in the recorded history keep their numbers.
        let end = self.recorded_findings().len();
        if end > found.len() {
            let later = if end == found.len() + 1 {
                format!("#{end}")
            } else {
                format!("#{}-#{end}", found.len() + 1)
            };
            s.push_str(&format!(
                "Later in the recorded history: {later} (`finding N` goes to one).\n"
            ));
        }
        s
    }
}
