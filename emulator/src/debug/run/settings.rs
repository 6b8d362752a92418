//! Commands that change a value or a setting: `set` of a register or memory, and
//! `set check` (the other settings are one assignment each, in `mod.rs`).

use super::CommandOutput;
use crate::check::CheckGroup;
use crate::debug::command::{CommandError, RegRef, SetTarget};
use crate::debug::expr::ParsedExpr;
use crate::debug::{Engine, RegisterWrite};

impl Engine {
    pub(super) fn check_command(&mut self, group: CheckGroup, on: bool) -> CommandOutput {
        self.set_check(group, on);
        CommandOutput::text(format!("Sanitizer: {} on.\n", self.checks().names()))
    }

    /// `set TARGET = VALUE`: the value's low 32 bits into a register of the selected wave
    /// (every lane of `vN`) or a u32 of memory.
    pub(super) fn set(
        &mut self,
        target: &SetTarget,
        value: &ParsedExpr,
    ) -> Result<(), CommandError> {
        let name = "set";
        let v = self.eval(name, value, None)?;
        let (w, lane) = (self.selected_wave, self.selected_lane);
        if self.machine().waves.get(w).is_none() {
            return Err(CommandError::refused(name, "no wave selected"));
        }
        let reg = match target {
            SetTarget::Memory(m) => {
                let addr = self.eval(name, &m.addr, None)? as u64;
                return self
                    .write_memory(m.space, w, lane, addr, &(v as u32).to_le_bytes())
                    .map_err(|e| CommandError::Memory {
                        command: name,
                        message: e.to_string(),
                    });
            }
            SetTarget::Register(r) => r,
        };
        let write = match reg {
            RegRef::Vector(reg) => RegisterWrite::V {
                reg: *reg,
                lanes: [v as u32; 32],
            },
            RegRef::VectorLane(reg, index) => {
                let l = index
                    .expr
                    .eval(self.machine(), w, Some(lane))
                    .map_err(|e| CommandError::refused(name, e.message))?;
                if !(0..32).contains(&l) {
                    return Err(CommandError::refused(
                        name,
                        format!("lane {l} out of range (0-31)"),
                    ));
                }
                RegisterWrite::VLane {
                    reg: *reg,
                    lane: l as u8,
                    value: v as u32,
                }
            }
            RegRef::Uniform(reg) => RegisterWrite::U {
                reg: *reg,
                value: v as u32,
            },
            RegRef::Exec => RegisterWrite::Exec(v as u32),
            RegRef::Pc => {
                if v % 4 != 0 || v < 0 {
                    return Err(CommandError::refused(name, "pc must be a multiple of 4"));
                }
                RegisterWrite::Pc(v as u64)
            }
        };
        self.write_register(w, write)
            .map_err(|e| CommandError::engine(name, e))
    }
}
