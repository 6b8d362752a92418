//! The debugger's state and what changes it. Keys and clicks become commands of the
//! command language (so `--record` captures them and there is one way to drive the
//! engine); commands that run the machine go to a [`Job`](crate::worker::Job) on a worker
//! thread, the others run at once. Drawing lives in [`crate::ui`] and only reads this
//! state; this module knows nothing of drawing (what the last frame drew where comes back
//! as a [`HitMap`](crate::hits::HitMap)).
//!
//! - [`state`]: [`App`], its app-wide data, and the small helpers every part uses.
//! - `jobs`: running commands, on the worker thread or at once, and taking in results.
//! - `commands`: the actions keys and the command line trigger (step, breakpoints, waves).
//! - `input`: key, mouse and paste handling, and the app-wide keys.
//! - `typeahead`: what is typed while a run has the engine, handled when it stops.
//!
//! Each pane's state is a struct in the pane's file, with the pane's keys:
//! - `code`: the disassembly and the code cursor.
//! - [`source`]: the kernel's source and the source cursor.
//! - [`high_level`]: the higher-level files of a kernel with a line table.
//! - `lanes`: the lane grid's registers, and the lanes a stop concerns.
//! - `registers`: the registers pane's scroll.
//! - `memory`: the memory view's cursor, regions and watchpoints.
//! - `breakpoints`: the cursor in the breakpoint list.
//! - `console`: the command output kept and its scroll.
//! - `watch`: the Watch pane's displays, their values and changes, and its keys.
//! - `locals`: the Locals pane's selected variable and its keys.
//! - [`search`]: `/` in the Source, Code and Console panes, and `n`/`N`.
//! - `splits`: growing and shrinking the wide layout's splits (`+`/`-`, `<`/`>`).
//! - [`activity`]: each wave's active lanes over its last instructions (the sparkline).

pub mod activity;
mod breakpoints;
mod code;
mod commands;
mod console;
pub mod entries;
pub mod high_level;
mod input;
mod jobs;
mod lanes;
mod locals;
mod memory;
mod registers;
pub mod search;
pub mod source;
mod splits;
pub mod state;
mod typeahead;
mod watch;

pub use breakpoints::BreakpointsPane;
pub use code::{CodeLine, CodePane};
pub use console::{ConsolePane, LineKind, CONSOLE_MAX};
pub use entries::EntryCursor;
pub use lanes::{LanesPane, StopLanes};
pub use locals::LocalsPane;
pub use memory::{MemoryPane, SPACES};
pub use registers::RegistersPane;
pub use source::{SourceMode, SourcePane, SourceView};
pub use state::{demo_engine, App, CodeLayout, HelpOverlay, Message, Pane, Question, StatusKind};
pub use typeahead::{TypeAhead, Typed};
pub use watch::{WatchPane, WatchRow, WatchValue};
