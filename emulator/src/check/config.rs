//! Which detectors are on: the four groups as `set check GROUP on|off` names them, and
//! the set of groups a launch checks.

use serde::{Deserialize, Serialize};

/// Which detector groups are on; the default is none (the machine then holds no
/// sanitizer at all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Checks {
    /// Data races on shared and global memory, and lanes of one store writing different
    /// values to one address.
    pub races: bool,
    /// Barrier misuse: lanes skipping a barrier, waves released from different barriers,
    /// barriers that can never complete.
    pub sync: bool,
    /// Shared memory, scratch and registers read before anything wrote them.
    pub init: bool,
    /// Registers read or overwritten while an asynchronous operation still uses them.
    pub hazards: bool,
    /// Active lanes of a cross-lane instruction reading a lane inactive in EXEC (absent
    /// in sessions saved before it existed: off).
    #[serde(default)]
    pub xlane: bool,
}

impl Checks {
    /// Every detector group on.
    pub const ALL: Checks = Checks {
        races: true,
        sync: true,
        init: true,
        hazards: true,
        xlane: true,
    };

    /// Whether at least one detector is on (the machine needs a sanitizer).
    pub fn any(self) -> bool {
        self.races || self.sync || self.init || self.hazards || self.xlane
    }

    /// Whether `group` is on (`All`: whether every group is).
    pub fn get(self, group: CheckGroup) -> bool {
        match group {
            CheckGroup::Races => self.races,
            CheckGroup::Sync => self.sync,
            CheckGroup::Init => self.init,
            CheckGroup::Hazards => self.hazards,
            CheckGroup::Xlane => self.xlane,
            CheckGroup::All => self == Checks::ALL,
        }
    }

    /// Turns `group` (or, for `All`, every group) on or off.
    pub fn set(&mut self, group: CheckGroup, on: bool) {
        match group {
            CheckGroup::Races => self.races = on,
            CheckGroup::Sync => self.sync = on,
            CheckGroup::Init => self.init = on,
            CheckGroup::Hazards => self.hazards = on,
            CheckGroup::Xlane => self.xlane = on,
            CheckGroup::All => {
                *self = if on { Checks::ALL } else { Checks::default() };
            }
        }
    }

    /// The names of the groups that are on, space-separated in [`CheckGroup::GROUPS`]
    /// order (`none` when none is).
    pub fn names(self) -> String {
        let on: Vec<&str> = CheckGroup::GROUPS
            .iter()
            .filter(|g| self.get(**g))
            .map(|g| g.name())
            .collect();
        if on.is_empty() {
            "none".into()
        } else {
            on.join(" ")
        }
    }
}

/// A detector group, as `set check GROUP on|off` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckGroup {
    /// Data races and same-instruction conflicts ([`Checks::races`]).
    Races,
    /// Barrier misuse ([`Checks::sync`]).
    Sync,
    /// Uninitialised reads of memory and registers ([`Checks::init`]).
    Init,
    /// Register use before its wait ([`Checks::hazards`]).
    Hazards,
    /// Cross-lane reads of inactive lanes ([`Checks::xlane`]).
    Xlane,
    /// Every group at once.
    All,
}

impl CheckGroup {
    /// The groups, without `All`, in the order reports list them.
    pub const GROUPS: [CheckGroup; 5] = [
        CheckGroup::Races,
        CheckGroup::Sync,
        CheckGroup::Init,
        CheckGroup::Hazards,
        CheckGroup::Xlane,
    ];

    /// Its lowercase name in the command language (`races`, ..., `all`).
    pub const fn name(self) -> &'static str {
        match self {
            CheckGroup::Races => "races",
            CheckGroup::Sync => "sync",
            CheckGroup::Init => "init",
            CheckGroup::Hazards => "hazards",
            CheckGroup::Xlane => "xlane",
            CheckGroup::All => "all",
        }
    }

    /// The group of that exact [`CheckGroup::name`], `None` for any other text.
    pub fn parse(s: &str) -> Option<CheckGroup> {
        CheckGroup::GROUPS
            .into_iter()
            .chain([CheckGroup::All])
            .find(|g| g.name() == s)
    }
}
