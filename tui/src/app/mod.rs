//! The debugger's state and what changes it. Keys and clicks become commands of the
//! command language (so `--record` captures them and there is one way to drive the
//! engine); commands that run the machine go to a [`Job`](crate::worker::Job) on a worker
//! thread, the others run at once. Drawing lives in [`crate::ui`] and only reads this
//! state; this module knows nothing of drawing (what the last frame drew where comes back
//! as a [`HitMap`](crate::hits::HitMap)).
//!
//! - [`state`]: [`App`] and its data, and the small helpers every part uses.
//! - `jobs`: running commands, on the worker thread or at once, and taking in results.
//! - `commands`: the actions keys and the command line trigger (step, breakpoints, waves).
//! - `input`: key, mouse and paste handling.
//! - `memory`: the memory view's cursor, regions and watchpoints.
//! - `lanes`: the lane grid's registers, and the lanes a stop concerns.
//! - `source`: the kernel's source and the source cursor.
//! - `activity`: each wave's active lanes over its last instructions (the sparkline).

pub mod activity;
mod commands;
mod input;
mod jobs;
mod lanes;
mod memory;
pub mod source;
pub mod state;

pub use lanes::StopLanes;
pub use source::SourceView;
pub use state::{
    demo_engine, App, CodeLayout, CodeLine, LineKind, Message, Pane, StatusKind, SPACES,
};
