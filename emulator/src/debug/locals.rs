//! `info locals`: the source variables of `.var` live at the selected wave's PC, each
//! with its value in its type, and the reading of a variable that expressions (`print
//! NAME`, conditions) use (docs/source-level.md).

use super::expr::{Scalar, Value};
use super::Engine;
use crate::machine::Machine;
use crate::memory::Space;
use crate::program::{VarDef, VarLocation, VarType};

/// A value's bits (the low 4 bytes for a 32-bit type) written in its type, as gdb prints.
fn typed_text(bits: u64, ty: VarType) -> String {
    match ty {
        VarType::U32 => (bits as u32).to_string(),
        VarType::I32 => (bits as u32 as i32).to_string(),
        VarType::F32 => f32::from_bits(bits as u32).to_string(),
        VarType::U64 => bits.to_string(),
        VarType::F64 => f64::from_bits(bits).to_string(),
    }
}

/// A variable's bits as the typed value of `print`'s output.
pub(crate) fn typed_scalar(bits: u64, ty: VarType) -> Scalar {
    match ty {
        VarType::U32 => Scalar::Int((bits as u32).into()),
        VarType::I32 => Scalar::Int((bits as u32 as i32).into()),
        VarType::F32 => Scalar::F32(f32::from_bits(bits as u32)),
        VarType::U64 => Scalar::U64(bits),
        VarType::F64 => Scalar::F64(f64::from_bits(bits)),
    }
}

/// Whether a location holds one value per lane (a vector register or pair, scratch).
pub(crate) fn per_lane(location: &VarLocation) -> bool {
    matches!(
        location,
        VarLocation::Vector(_) | VarLocation::VectorPair(_) | VarLocation::Scratch(_)
    )
}

/// The PC whose variables wave `w` shows: for a wave that has exited, the `end` it
/// exited at (its values stay readable there, as every view shows the wave at its `end`).
fn wave_pc(m: &Machine, w: usize) -> Option<u64> {
    m.waves.get(w).map(|x| super::view::shown_pc(m, x))
}

/// The variable called `name` live at wave `w`'s PC (the latest declared, when live
/// ranges of one name overlap).
pub(crate) fn live_var<'m>(m: &'m Machine, w: usize, name: &str) -> Option<&'m VarDef> {
    let pc = wave_pc(m, w)?;
    let info = &m.program().source_info;
    info.vars
        .iter()
        .rev()
        .find(|v| v.name == name && v.start <= pc && pc < v.end)
}

/// Why `name` cannot be read at wave `w`'s PC when a variable of that name exists
/// elsewhere: where it is live. `None` when no variable has the name.
pub(crate) fn not_live_message(m: &Machine, w: usize, name: &str) -> Option<String> {
    let ranges: Vec<String> = m
        .program()
        .source_info
        .vars
        .iter()
        .filter(|v| v.name == name)
        .map(|v| format!("{:#06x}-{:#06x}{}", v.start, v.end, lines_of(m, v)))
        .collect();
    if ranges.is_empty() {
        return None;
    }
    let pc = wave_pc(m, w).unwrap_or(0);
    Some(format!(
        "variable `{name}` is not live at pc {pc:#06x} (it is live at {})",
        ranges.join(", ")
    ))
}

/// The higher-level lines of a variable's live range in the file of its first line
/// (` (src/k.cl:9-11)`), empty when the range has no line.
fn lines_of(m: &Machine, v: &VarDef) -> String {
    let p = m.program();
    let info = &p.source_info;
    let rows = info
        .row_at(v.start, p.code_bytes())
        .into_iter()
        .chain(
            info.rows
                .iter()
                .filter(|r| v.start < r.addr && r.addr < v.end),
        )
        .filter(|r| r.line != 0);
    let Some((file, lo, hi)) = rows.fold(None, |acc: Option<(u32, u32, u32)>, r| match acc {
        None => Some((r.file, r.line, r.line)),
        Some((f, lo, hi)) if r.file == f => Some((f, lo.min(r.line), hi.max(r.line))),
        other => other,
    }) else {
        return String::new();
    };
    let path = info.file(file).map_or("?", |f| f.path.as_str());
    if lo == hi {
        format!(" ({path}:{lo})")
    } else {
        format!(" ({path}:{lo}-{hi})")
    }
}

/// The bits of variable `v` in lane `lane` of wave `w` (a uniform or global value is
/// the same in every lane), or why they cannot be read.
pub(crate) fn var_bits(m: &Machine, v: &VarDef, w: usize, lane: u8) -> Result<u64, String> {
    let wave = m.waves.get(w).ok_or("no wave selected")?;
    let l = lane as usize % 32;
    let pair = |lo: u32, hi: u32| lo as u64 | (hi as u64) << 32;
    let mem = |space: Space, addr: u64| -> Result<u64, String> {
        let mut b = [0u8; 8];
        let n = v.ty.bytes() as usize;
        m.read_space(space, w, lane, addr, &mut b[..n])
            .map_err(|e| e.to_string())?;
        Ok(u64::from_le_bytes(b))
    };
    match &v.location {
        VarLocation::Vector(r) => Ok(wave.v[*r as usize][l] as u64),
        VarLocation::Uniform(r) => Ok(wave.u[*r as usize] as u64),
        VarLocation::VectorPair(r) => {
            let r = *r as usize;
            Ok(pair(wave.v[r][l], wave.v[r + 1][l]))
        }
        VarLocation::UniformPair(r) => {
            let r = *r as usize;
            Ok(pair(wave.u[r], wave.u[r + 1]))
        }
        VarLocation::Global { buffer, offset } => {
            let base = m
                .buffer_base(buffer)
                .ok_or_else(|| format!("no buffer `{buffer}`"))?;
            mem(Space::Global, base.wrapping_add(*offset))
        }
        VarLocation::Shared(a) => mem(Space::Shared, *a),
        VarLocation::Scratch(a) => mem(Space::Scratch, *a),
    }
}

/// A variable's bits as an expression value of its type: floats as floats, `i32`
/// sign-extended, `u32` and `u64` as they are.
pub(crate) fn typed_value(bits: u64, ty: VarType) -> Value {
    match ty {
        VarType::U32 => Value::Int(bits as u32 as i64),
        VarType::I32 => Value::Int(bits as u32 as i32 as i64),
        VarType::F32 => Value::Float(f32::from_bits(bits as u32) as f64),
        VarType::U64 => Value::Int(bits as i64),
        VarType::F64 => Value::Float(f64::from_bits(bits)),
    }
}

/// A variable's bits as `print` shows them: in its type without a format, else in the
/// format at the type's size (`p/x` shows a float's bits, as for a register).
pub(crate) fn formatted(bits: u64, ty: VarType, format: Option<char>) -> String {
    match format {
        None => typed_text(bits, ty),
        Some(f) => super::view::format_value(bits, f, ty.bytes() as usize),
    }
}

/// A source variable live at the selected wave's PC, with its values (what a front end's
/// locals pane shows; `info locals` writes the selected lane's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    /// Its source name.
    pub name: String,
    /// Its type's name (`f32`).
    pub ty: &'static str,
    /// Where it lives, as `.var` wrote it (`v4`, `u[4:5]`, `shared:0x40`).
    pub location: String,
    /// Its value in its type, or why it cannot be read: one per lane, lane 0 first, for a
    /// per-lane location (a vector register or pair, scratch); else one, the same in every
    /// lane.
    pub values: Vec<Result<String, String>>,
}

impl Engine {
    /// The variables live at the selected wave's PC, in declaration order (as `info
    /// locals` lists them), each with its value in every lane; empty where none is live
    /// or no wave is selected.
    pub fn locals(&self) -> Vec<Local> {
        self.locals_in(self.machine())
    }

    /// [`Engine::locals`] as machine `m` has them at the selected wave's index and lane: an
    /// earlier state's (such as [`Engine::previous`]), to mark what changed since.
    pub fn locals_in(&self, m: &Machine) -> Vec<Local> {
        self.locals_of(m, self.selected_wave)
    }

    /// [`Engine::locals_in`] of wave index `w` rather than the selected one (a DAP client
    /// asks for any thread's locals without selecting it); a location that is not per
    /// lane is read in the selected lane, as `info locals` reads it.
    pub fn locals_of(&self, m: &Machine, w: usize) -> Vec<Local> {
        let Some(pc) = wave_pc(m, w) else {
            return Vec::new();
        };
        let value = |v: &VarDef, lane: u8| var_bits(m, v, w, lane).map(|b| typed_text(b, v.ty));
        m.program()
            .source_info
            .live_vars(pc)
            .into_iter()
            .map(|v| Local {
                name: v.name.clone(),
                ty: v.ty.name(),
                location: v.location.to_string(),
                values: if per_lane(&v.location) {
                    (0..32).map(|l| value(v, l)).collect()
                } else {
                    vec![value(v, self.selected_lane)]
                },
            })
            .collect()
    }

    /// `info locals`: `NAME = VALUE` for each variable live at the selected wave's PC, in
    /// declaration order, with where it lives (a per-lane location names the selected
    /// lane, whose value is shown).
    pub(super) fn info_locals_text(&self) -> String {
        let w = self.selected_wave;
        let Some(pc) = wave_pc(self.machine(), w) else {
            return "No frame selected.\n".into();
        };
        let live = self.machine().program().source_info.live_vars(pc);
        if live.is_empty() {
            return "No locals.\n".into();
        }
        let lane = self.selected_lane;
        live.iter()
            .map(|v| {
                let value = match var_bits(self.machine(), v, w, lane) {
                    Ok(bits) => typed_text(bits, v.ty),
                    Err(e) => format!("<unreadable: {e}>"),
                };
                let place = if per_lane(&v.location) {
                    format!("{}, lane {lane}", v.location)
                } else {
                    v.location.to_string()
                };
                format!("{} = {value}  ({} in {place})\n", v.name, v.ty.name())
            })
            .collect()
    }
}
