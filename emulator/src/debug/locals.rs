//! `info locals`: the source variables of `.var` live at the selected wave's PC, each
//! with its value in its type (docs/source-level.md).

use super::Engine;
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

impl Engine {
    /// The bits of variable `v` in lane `lane` of wave `w` (a uniform or global value is
    /// the same in every lane), or why they cannot be read.
    fn var_bits(&self, v: &VarDef, w: usize, lane: u8) -> Result<u64, String> {
        let m = self.machine();
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

    /// `info locals`: `NAME = VALUE` for each variable live at the selected wave's PC, in
    /// declaration order, with where it lives (a per-lane location names the selected
    /// lane, whose value is shown).
    pub(super) fn info_locals_text(&self) -> String {
        let w = self.selected_wave;
        let Some(pc) = self.machine().waves.get(w).map(|x| x.pc) else {
            return "No frame selected.\n".into();
        };
        let live = self.machine().program().source_info.live_vars(pc);
        if live.is_empty() {
            return "No locals.\n".into();
        }
        let lane = self.selected_lane;
        live.iter()
            .map(|v| {
                let per_lane = matches!(
                    v.location,
                    VarLocation::Vector(_) | VarLocation::VectorPair(_) | VarLocation::Scratch(_)
                );
                let value = match self.var_bits(v, w, lane) {
                    Ok(bits) => typed_text(bits, v.ty),
                    Err(e) => format!("<unreadable: {e}>"),
                };
                let place = if per_lane {
                    format!("{}, lane {lane}", v.location)
                } else {
                    v.location.to_string()
                };
                format!("{} = {value}  ({} in {place})\n", v.name, v.ty.name())
            })
            .collect()
    }
}
