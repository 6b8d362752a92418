//! The debugger's tests, one file per feature, whether a test drives the engine through
//! its typed API (`Engine::continue_all`, `add_breakpoint`, ...) or through command text
//! (`driver::run_line`):
//!
//! - `breakpoints.rs`: breakpoints, conditions, filters, counts, `tbreak`, `brk`,
//!   `info breakpoints`;
//! - `watchpoints.rs`: watchpoints on every space, kinds, conditions, many at once;
//! - `stepping.rs`: continue, stepi, advance, until, finish, restart, interrupt;
//! - `faults.rs`: faults and deadlocks;
//! - `hints.rs`: every hint in an error or stop names a command that works in that state;
//! - `inspection.rs`: wave and lane selection, print, x, info, set, disassemble, changes;
//! - `expressions.rs`: the expression language and `expect`;
//! - `source.rs`: source lines and `list`;
//! - `context.rs`: the context shown after stops;
//! - `completion.rs`: completion of command lines;
//! - `driver.rs`: the command path (typed arguments with columns, Enter-repeat, quit
//!   words, questions before the history goes, typed outputs, owners of points,
//!   `Engine::open`);
//! - `commands.rs`: the command language as a whole (help, every command and alias,
//!   errors, text round trips, docs/commands.md);
//! - `sessions.rs`: scripts, sessions, replays, the command log;
//! - `loading.rs`: kernels and kernel objects from untrusted input;
//! - `time_travel.rs`: reverse execution, `goto`, `last-write`, history;
//! - `time_travel_index.rs`: the history's index against an unindexed oracle on random
//!   programs, writes that leave a value unchanged, interrupted searches, thinning;
//! - `snapshots.rs`: refreshed time-travel snapshots equal full copies;
//! - `sanitizer.rs`: the sanitizer under the debugger (stops, time travel, sessions);
//! - `visiting.rs`: `finding N`, visiting a finding's sides with time travel, and where
//!   a read of inactive lanes' values were last written.
//!
//! `fixtures.rs` holds the shared helpers (engines, command runners, the lane-view
//! parser) and imports; `kernels.rs` the kernels several files use.

mod fixtures;
mod kernels;

mod breakpoints;
mod commands;
mod completion;
mod context;
mod driver;
mod expressions;
mod faults;
mod hints;
mod inspection;
mod loading;
mod sanitizer;
mod sessions;
mod snapshots;
mod source;
mod source_level;
mod stepping;
mod time_travel;
mod time_travel_index;
mod visiting;
mod watchpoints;
mod width;
