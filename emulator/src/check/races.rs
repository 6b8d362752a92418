//! Races: two waves touching the same bytes of shared or global memory, one of them
//! with a plain write, with no barrier of their workgroup between them and, in global
//! memory, no release/acquire through an atomic (`order.rs`); and lanes of one store
//! writing different values to one address.

use super::shadow::{Conflict, Ref};
use super::{Finding, FindingKind, MemAccess, MissingFence, Sanitizer, Site};
use crate::memory::Space;
use crate::trace::MemTrace;
use crate::wave::{Wave, LANES};

impl Sanitizer {
    /// The accesses `trace` of `wave` (in slot `s`, barrier epoch `epoch`) to shared or
    /// global memory (`space`, accessed as `access`, issued on the `vm` counter or not:
    /// `on_vm`) against the earlier accesses of other waves. `site` is the instruction;
    /// `refused`: whether [`RaceShadow::take_trace`](super::shadow::RaceShadow::take_trace)
    /// was asked already, and refused.
    /// Returns the access's record.
    pub(super) fn races(
        &mut self,
        s: usize,
        wave: &Wave,
        trace: &MemTrace,
        (space, access, on_vm): (Space, MemAccess, bool),
        (site, epoch): (Site, u32),
        refused: bool,
    ) -> Ref {
        let groups = self.groups;
        let ordered = space == Space::Global && self.order.on();
        let gen = if ordered {
            self.order.access(wave, access, trace, site.pc)
        } else {
            0
        };
        let me = Ref::new(wave.id, epoch, site.pc, access).with_gen(gen);
        if !self.slots[s].late.is_empty() {
            let at = Site {
                epoch: Some(epoch),
                ..site
            };
            self.late_races(s, trace, (space, me, at), ordered.then_some(on_vm));
        }
        let shadow = match space {
            Space::Shared => &mut self.slots[s].race,
            _ => &mut self.global,
        };
        let mut conflicts: Vec<(Conflict, u8, u64)> = Vec::new();
        let order = &self.order;
        // Asked only of accesses barriers leave concurrent.
        let hb = |prior: &Ref, now: &Ref| ordered && order.ordered(prior, now, on_vm);
        // Not asked yet: taken page by page, if at all, as the accesses are recorded
        // (asked first, a refusal would cost a second look-up of the page).
        shadow.record_trace(trace, me, refused, (groups, &hb), &mut |e, c| {
            conflicts.push((c, e.lane, e.addr));
        });
        for (c, lane, addr) in conflicts {
            let mut other = c.prior.site(groups);
            // A record keeps its barrier count modulo 2^16; one of this workgroup that
            // conflicts has the current count's low bits, and is not older than the
            // last time its shared records were forgotten (hooks.rs, `release`).
            if other.workgroup == wave.workgroup {
                other.epoch = Some(epoch);
            }
            let missing = if ordered {
                self.order
                    .missing(&c.prior, &me.with_lane(lane), groups, on_vm)
            } else {
                MissingFence::Synchronisation
            };
            let between = other.workgroup != wave.workgroup;
            // Every lane of this instruction on the same address races with the earlier
            // access, not only the one the shadow met it through (after that lane, the
            // cell holds this wave's own access).
            let lanes = (trace.accesses())
                .filter(|e| e.addr == addr)
                .fold(1u32 << (lane & 31), |m, e| m | 1 << (e.lane & 31));
            let mut f = Finding::new(
                FindingKind::Race,
                Site {
                    lanes,
                    epoch: Some(epoch),
                    ..site
                },
            );
            f.other = Some(other);
            f.fence = (space == Space::Global
                && (between || missing != MissingFence::Synchronisation))
                .then_some(missing);
            f.space = Some(space);
            f.addr = Some(addr);
            f.len = trace.len;
            self.push(f);
        }
        // A run's lanes are on ascending, disjoint bytes, and a store's two runs on
        // disjoint bytes: they cannot conflict.
        if access == MemAccess::Write && trace.run.is_none() && trace.entries.len() > 1 {
            self.same_instruction(trace, space, site);
        }
        me
    }

    /// Lanes of one store writing different bytes to the same address.
    fn same_instruction(&mut self, trace: &MemTrace, space: Space, site: Site) {
        let len = trace.len as u64;
        // Lanes storing to ascending, disjoint addresses (the common case) cannot conflict.
        if trace
            .entries
            .windows(2)
            .all(|p| p[0].addr.saturating_add(len) <= p[1].addr)
        {
            return;
        }
        // At most 32 entries (one per lane): sorted on the stack, by address then lane.
        let mut buf = [(0u64, 0u8, 0u128); LANES];
        let n = trace.entries.len().min(LANES);
        for (k, e) in trace.entries.iter().take(n).enumerate() {
            buf[k] = (e.addr, e.lane, trace.data.get(k).copied().unwrap_or(0));
        }
        let order = &mut buf[..n];
        order.sort_unstable_by_key(|e| (e.0, e.1));
        let mut lanes = 0u32;
        // The addresses where lanes conflict.
        let mut at: Vec<u64> = Vec::new();
        for (i, a) in order.iter().enumerate() {
            for b in &order[i + 1..] {
                if b.0 >= a.0 + len {
                    break;
                }
                // Compare the overlapping bytes.
                let shift = b.0 - a.0;
                let overlap = len - shift;
                let mask = if overlap >= 16 {
                    u128::MAX
                } else {
                    (1u128 << (8 * overlap)) - 1
                };
                if (a.2 >> (8 * shift)) & mask != b.2 & mask {
                    lanes |= 1 << a.1 | 1 << b.1;
                    at.push(b.0);
                }
            }
        }
        if lanes != 0 {
            let mut f = Finding::new(FindingKind::SameInstruction, Site { lanes, ..site });
            f.space = Some(space);
            at.sort_unstable();
            at.dedup();
            f.addr = at.first().copied();
            if at.len() > 1 {
                f.addrs = at;
            }
            f.len = trace.len;
            self.push(f);
        }
    }
}
