//! The Debug Adapter Protocol messages this adapter reads and writes, as serde types named
//! and shaped as the protocol's JSON schema (debugProtocol.json) names them. Only the
//! fields the adapter uses are here; unknown fields a client sends are ignored, as the
//! protocol asks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request from the client: its kind, its number and its arguments (typed per
/// command by the dispatcher).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Request {
    /// The client's sequence number, which the response names.
    pub seq: i64,
    /// `request` for a request (the only kind a client sends).
    #[serde(rename = "type")]
    pub kind: String,
    /// The request's name (`launch`, `threads`).
    pub command: String,
    /// The request's arguments, read into the command's own type.
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// What the adapter writes: a response or an event, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Outgoing {
    /// The answer to one request.
    Response(Response),
    /// Something that happened (a stop, output, a thread).
    Event(Event),
}

/// The answer to a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// The adapter's sequence number.
    pub seq: i64,
    /// The request answered (0 when the request could not be read).
    #[serde(rename = "request_seq")]
    pub request_seq: i64,
    /// Whether it succeeded.
    pub success: bool,
    /// The request's name.
    pub command: String,
    /// Why it failed (shown to the user).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The result, serialized from the command's body type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

/// An event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// The adapter's sequence number.
    pub seq: i64,
    /// Its name (`stopped`, `output`).
    pub event: String,
    /// Its body, serialized from the event's body type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

/// An error response's body: the message again, structured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorBody {
    /// The error as a message object.
    pub error: Message,
}

/// A structured error message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// A number for the kind of error (see `crate::error`).
    pub id: i64,
    /// The text.
    pub format: String,
    /// Whether the client should show it to the user.
    pub show_user: bool,
}

// ---- initialize ----

/// `initialize`'s arguments (the ones that change what the adapter sends).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InitializeArguments {
    /// The client's id (`vscode`), for messages.
    #[serde(rename = "clientID")]
    pub client_id: Option<String>,
    /// Whether lines are 1-based (the default).
    pub lines_start_at1: Option<bool>,
    /// Whether columns are 1-based (the default).
    pub columns_start_at1: Option<bool>,
}

/// What the adapter can do, as `initialize` answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// `configurationDone` is understood.
    pub supports_configuration_done_request: bool,
    /// `setFunctionBreakpoints` is understood.
    pub supports_function_breakpoints: bool,
    /// Breakpoints take conditions.
    pub supports_conditional_breakpoints: bool,
    /// Breakpoints take hit conditions.
    pub supports_hit_conditional_breakpoints: bool,
    /// Hover and watch expressions are evaluated.
    pub supports_evaluate_for_hovers: bool,
    /// The exception filters the client may turn on.
    pub exception_breakpoint_filters: Vec<ExceptionBreakpointsFilter>,
    /// `stepBack` and `reverseContinue` are understood.
    pub supports_step_back: bool,
    /// `setVariable` is understood.
    pub supports_set_variable: bool,
    /// `restart` is understood.
    pub supports_restart_request: bool,
    /// `gotoTargets` and `goto` are understood.
    pub supports_goto_targets_request: bool,
    /// `exceptionInfo` is understood.
    pub supports_exception_info_request: bool,
    /// `terminate` is understood.
    pub supports_terminate_request: bool,
    /// Breakpoints take log messages.
    pub supports_log_points: bool,
    /// `setDataBreakpoints` and `dataBreakpointInfo` are understood.
    pub supports_data_breakpoints: bool,
    /// `dataBreakpointInfo` takes `asAddress` and `bytes`.
    pub supports_data_breakpoint_bytes: bool,
    /// `readMemory` is understood.
    pub supports_read_memory_request: bool,
    /// `writeMemory` is understood.
    pub supports_write_memory_request: bool,
    /// `disassemble` is understood.
    pub supports_disassemble_request: bool,
    /// Steps take a granularity.
    pub supports_stepping_granularity: bool,
    /// `setInstructionBreakpoints` is understood.
    pub supports_instruction_breakpoints: bool,
    /// `completions` is understood (the debug console's command lines).
    pub supports_completions_request: bool,
    /// `breakpointLocations` is understood (the lines with code).
    pub supports_breakpoint_locations_request: bool,
}

/// One exception filter the client lists for the user.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExceptionBreakpointsFilter {
    /// Its id, sent back in `setExceptionBreakpoints`.
    pub filter: String,
    /// Its name in the client's list.
    pub label: String,
    /// What it stops on.
    pub description: String,
    /// Whether it is on until the client says otherwise.
    pub default: bool,
}

// ---- launch ----

/// `launch`'s arguments: the kernel or session and the launch options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LaunchArguments {
    /// The kernel: a `.s` source or a `.wko` object (the demo when neither this nor a
    /// session is given).
    pub program: Option<String>,
    /// A saved session (its kernel when `program` is not given).
    pub session: Option<String>,
    /// Workgroups in the grid.
    pub grid: Option<u32>,
    /// Lanes per workgroup (a multiple of 32).
    pub workgroup: Option<u32>,
    /// Scheduling seed (0: round-robin).
    pub seed: Option<u64>,
    /// Instructions a wave runs before the scheduler switches.
    pub quantum: Option<u32>,
    /// Workgroups resident at once.
    pub resident: Option<u32>,
    /// Fault after this many wave-instructions (0 or absent: unlimited).
    pub max_instructions: Option<u64>,
    /// Sanitizer groups to turn on: `races`, `sync`, `init`, `hazards`, `all`.
    pub checks: Vec<String>,
    /// Stop before the first instruction instead of running at `configurationDone`.
    pub stop_on_entry: bool,
    /// Run without stopping at breakpoints (the client's "run without debugging").
    pub no_debug: bool,
    /// Let the kernel's `.file` directives read files outside its source's directory
    /// (by default they are confined to it, as `--allow-file-outside-dir` is off).
    pub allow_file_outside_dir: bool,
}

/// `restart`'s arguments: the launch arguments again, possibly changed.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct RestartArguments {
    /// The new launch arguments (absent: the same launch again).
    pub arguments: Option<LaunchArguments>,
}

// ---- breakpoints ----

/// A source file as the protocol names it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Source {
    /// Its short name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `breakpointLocations`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BreakpointLocationsArguments {
    /// The file.
    pub source: Option<Source>,
    /// The first line asked about.
    pub line: i64,
    /// The last (absent: `line` alone).
    pub end_line: Option<i64>,
}

/// A line a breakpoint can be set on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakpointLocation {
    /// The line.
    pub line: i64,
}

/// `breakpointLocations`' body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakpointLocationsBody {
    /// The lines with code, in order.
    pub breakpoints: Vec<BreakpointLocation>,
}

/// `setBreakpoints`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SetBreakpointsArguments {
    /// The file (the protocol requires it: a request without one is refused).
    pub source: Option<Source>,
    /// Every breakpoint the file has now.
    pub breakpoints: Option<Vec<SourceBreakpoint>>,
    /// The deprecated form: the lines alone (taken when `breakpoints` is absent).
    pub lines: Option<Vec<i64>>,
}

/// A breakpoint on a source line.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SourceBreakpoint {
    /// The line.
    pub line: i64,
    /// A condition in the command language's expressions.
    pub condition: Option<String>,
    /// `N`, `>=N` or `>N`: stop from the Nth hit (or after it).
    pub hit_condition: Option<String>,
    /// Print this instead of stopping; `{expr}` is replaced by its value.
    pub log_message: Option<String>,
}

/// `setFunctionBreakpoints`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SetFunctionBreakpointsArguments {
    /// Every label breakpoint there is now.
    pub breakpoints: Vec<FunctionBreakpoint>,
}

/// A breakpoint on a label.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FunctionBreakpoint {
    /// The label (`loop`, `loop+8`).
    pub name: String,
    /// A condition.
    pub condition: Option<String>,
    /// A hit condition.
    pub hit_condition: Option<String>,
}

/// `setInstructionBreakpoints`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SetInstructionBreakpointsArguments {
    /// Every instruction breakpoint there is now.
    pub breakpoints: Vec<InstructionBreakpoint>,
}

/// A breakpoint on a code address.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InstructionBreakpoint {
    /// The address, as a stack frame's `instructionPointerReference` gives it.
    pub instruction_reference: String,
    /// Bytes from it.
    pub offset: Option<i64>,
    /// A condition.
    pub condition: Option<String>,
    /// A hit condition.
    pub hit_condition: Option<String>,
}

/// `dataBreakpointInfo`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DataBreakpointInfoArguments {
    /// The container of `name` (0 or absent: `name` is an expression).
    pub variables_reference: Option<i64>,
    /// A variable's name, or a memory reference (`global:0x1000`, `out+4`).
    pub name: String,
    /// Bytes to watch when `name` is an address (the default 4).
    pub bytes: Option<u64>,
    /// Whether `name` is an address.
    pub as_address: Option<bool>,
}

/// What can be watched for a name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpointInfoBody {
    /// The id `setDataBreakpoints` takes (`None`: it cannot be watched).
    pub data_id: Option<String>,
    /// What is watched, or why it cannot be.
    pub description: String,
    /// The access types it can be watched for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub access_types: Vec<DataAccessType>,
    /// Whether it can be kept across sessions.
    pub can_persist: bool,
}

/// Which accesses a data breakpoint stops on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DataAccessType {
    /// Reads.
    Read,
    /// Writes.
    Write,
    /// Both.
    ReadWrite,
}

/// `setDataBreakpoints`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SetDataBreakpointsArguments {
    /// Every data breakpoint there is now.
    pub breakpoints: Vec<DataBreakpoint>,
}

/// A watchpoint.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpoint {
    /// The id `dataBreakpointInfo` gave.
    pub data_id: String,
    /// Which accesses (writes when absent).
    #[serde(default)]
    pub access_type: Option<DataAccessType>,
    /// A condition, evaluated after the access.
    #[serde(default)]
    pub condition: Option<String>,
    /// A hit condition (not supported for data breakpoints; refused).
    #[serde(default)]
    pub hit_condition: Option<String>,
}

/// `setExceptionBreakpoints`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SetExceptionBreakpointsArguments {
    /// The filters turned on.
    pub filters: Vec<String>,
}

/// A breakpoint as the adapter set it (or could not).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakpoint {
    /// Its number (the engine's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    /// Whether it was set.
    pub verified: bool,
    /// Why not, or what it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Its file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
    /// Its code address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_reference: Option<String>,
}

/// The breakpoints a `set...Breakpoints` request set, in its order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakpointsBody {
    /// One per breakpoint asked for.
    pub breakpoints: Vec<Breakpoint>,
}

// ---- threads, frames, variables ----

/// A thread (a wave).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thread {
    /// Its id (the wave's global id plus 1).
    pub id: i64,
    /// `wave N (workgroup W)`.
    pub name: String,
}

/// `threads`' body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadsBody {
    /// The resident waves.
    pub threads: Vec<Thread>,
}

/// Arguments naming a thread (`continue`, `next`, `stepIn`, `pause`, ...).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ThreadArguments {
    /// The thread.
    pub thread_id: i64,
    /// `instruction`, `line` or `statement`.
    pub granularity: Option<String>,
}

/// `stackTrace`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StackTraceArguments {
    /// The thread.
    pub thread_id: i64,
    /// The first frame wanted.
    pub start_frame: Option<i64>,
    /// How many (0 or absent: all).
    pub levels: Option<i64>,
}

/// A stack frame: a wave where it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    /// Its id (the thread's).
    pub id: i64,
    /// The label and offset of the PC.
    pub name: String,
    /// The PC's source file: the higher-level file of a kernel with a line table
    /// (`.loc`), else the kernel's `.s` file; none for code of no line in an object file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The PC's line in that file (0 without one).
    pub line: i64,
    /// The PC's column where the line table gives one, else the first column.
    pub column: i64,
    /// The PC, as `0x40`.
    pub instruction_pointer_reference: String,
}

/// `stackTrace`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceBody {
    /// The frames asked for.
    pub stack_frames: Vec<StackFrame>,
    /// How many there are.
    pub total_frames: i64,
}

/// `scopes`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScopesArguments {
    /// The frame.
    pub frame_id: i64,
}

/// A group of variables.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    /// Its name.
    pub name: String,
    /// `registers` or absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
    /// What `variables` takes to list it.
    pub variables_reference: i64,
    /// Whether listing it is costly.
    pub expensive: bool,
}

/// `scopes`' body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScopesBody {
    /// The frame's scopes.
    pub scopes: Vec<Scope>,
}

/// `variables`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VariablesArguments {
    /// The container.
    pub variables_reference: i64,
    /// The first child wanted.
    pub start: Option<i64>,
    /// How many (0 or absent: all).
    pub count: Option<i64>,
}

/// A variable: a register, a lane, a buffer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    /// Its name (`u4`, `v3`, `[7]`, `out`).
    pub name: String,
    /// Its value as text.
    pub value: String,
    /// Its type (`u32`, `u32x32`).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// How it is shown (inactive lanes are marked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<VariablePresentationHint>,
    /// The expression that evaluates to it (watch it, set it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluate_name: Option<String>,
    /// Its children's container (0: none).
    pub variables_reference: i64,
    /// Children, for clients that page them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed_variables: Option<i64>,
    /// Where it is in memory (buffers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_reference: Option<String>,
}

/// How a variable is shown.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VariablePresentationHint {
    /// `data`, `property`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `readOnly`, `constant`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<String>,
}

/// `variables`' body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariablesBody {
    /// The children.
    pub variables: Vec<Variable>,
}

/// `setVariable`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SetVariableArguments {
    /// The container.
    pub variables_reference: i64,
    /// The variable.
    pub name: String,
    /// Its new value, an expression.
    pub value: String,
}

/// `setVariable`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetVariableBody {
    /// The value now.
    pub value: String,
}

/// `evaluate`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EvaluateArguments {
    /// An expression, or (in the repl) a wavedbg command.
    pub expression: String,
    /// The frame (wave) it is evaluated in.
    pub frame_id: Option<i64>,
    /// `repl`, `hover`, `watch`, `clipboard`.
    pub context: Option<String>,
}

/// `evaluate`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateBody {
    /// The value, or the command's output.
    pub result: String,
    /// Children (0: none).
    pub variables_reference: i64,
}

// ---- run control ----

/// `continue`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueBody {
    /// Every wave runs.
    pub all_threads_continued: bool,
}

/// `gotoTargets`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct GotoTargetsArguments {
    /// The file (required).
    pub source: Option<Source>,
    /// The line.
    pub line: i64,
}

/// A place `goto` can move the PC to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoTarget {
    /// Its id (the code address).
    pub id: i64,
    /// What the client shows.
    pub label: String,
    /// Its line.
    pub line: i64,
    /// Its address.
    pub instruction_pointer_reference: String,
}

/// `gotoTargets`' body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GotoTargetsBody {
    /// The line's targets.
    pub targets: Vec<GotoTarget>,
}

/// `goto`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GotoArguments {
    /// The wave.
    pub thread_id: i64,
    /// A target's id.
    pub target_id: i64,
}

// ---- memory and code ----

/// `disassemble`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DisassembleArguments {
    /// A code address (`0x40`).
    pub memory_reference: String,
    /// Bytes from it.
    pub offset: Option<i64>,
    /// Instructions from there (negative: before).
    pub instruction_offset: Option<i64>,
    /// How many instructions.
    pub instruction_count: i64,
}

/// One instruction of a disassembly.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembledInstruction {
    /// Its address (`0x40`).
    pub address: String,
    /// Its code word(s) in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_bytes: Option<String>,
    /// Its text (`invalid` outside the code).
    pub instruction: String,
    /// The label at it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Its file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Source>,
    /// Its line: in the higher-level file of a kernel with a line table, else in the
    /// kernel's `.s` file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
    /// Its column, where the line table gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<i64>,
    /// `invalid` outside the code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
}

/// `disassemble`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DisassembleBody {
    /// As many instructions as asked for.
    pub instructions: Vec<DisassembledInstruction>,
}

/// `readMemory`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReadMemoryArguments {
    /// `global:0x1000`, `shared:0x10`, `scratch:0x4` or an address (global).
    pub memory_reference: String,
    /// Bytes from it.
    pub offset: Option<i64>,
    /// Bytes to read.
    pub count: i64,
}

/// `readMemory`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMemoryBody {
    /// The first byte's address.
    pub address: String,
    /// Bytes after the data that could not be read.
    pub unreadable_bytes: i64,
    /// The bytes, base64.
    pub data: String,
}

/// `writeMemory`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WriteMemoryArguments {
    /// As `readMemory` takes it.
    pub memory_reference: String,
    /// Bytes from it.
    pub offset: Option<i64>,
    /// The bytes, base64.
    pub data: String,
    /// Write what can be written when not all can (else nothing is written).
    pub allow_partial: bool,
}

/// `writeMemory`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteMemoryBody {
    /// Where the written bytes start, from the reference (with `allowPartial`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// Bytes written.
    pub bytes_written: i64,
}

/// `exceptionInfo`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExceptionInfoArguments {
    /// The thread whose exception is asked for.
    pub thread_id: i64,
}

/// `exceptionInfo`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionInfoBody {
    /// The fault's class or the finding's kind.
    pub exception_id: String,
    /// The engine's description (a finding names both sides).
    pub description: String,
    /// `always`: faults and findings stop whenever their filter is on.
    pub break_mode: String,
    /// The same, structured.
    pub details: ExceptionDetails,
}

/// An exception's details.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// The headline.
    pub message: String,
    /// `fault` or `sanitizer finding`.
    pub type_name: String,
}

// ---- events ----

/// `stopped`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoppedEventBody {
    /// `breakpoint`, `data breakpoint`, `step`, `pause`, `exception`, `entry`, `goto`.
    pub reason: String,
    /// The reason as shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The wave that stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<i64>,
    /// The engine's description of the stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Always: every wave stops.
    pub all_threads_stopped: bool,
    /// The breakpoints hit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hit_breakpoint_ids: Vec<i64>,
}

/// `output`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputEventBody {
    /// `console`, `stdout`, `stderr`.
    pub category: String,
    /// The text.
    pub output: String,
}

/// `continued`'s body (a run the debug console started).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinuedEventBody {
    /// The wave that runs (the selected one).
    pub thread_id: i64,
    /// Whether every wave runs, not only that one.
    pub all_threads_continued: bool,
}

/// `thread`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadEventBody {
    /// `started` or `exited`.
    pub reason: String,
    /// The wave.
    pub thread_id: i64,
}

/// `exited`'s body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitedEventBody {
    /// 0 when every wave finished, 1 when faulted waves ended the launch.
    pub exit_code: i64,
}

// ---- completions ----

/// `completions`' arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompletionsArguments {
    /// The wave the line is completed in (unused: the words are the kernel's).
    pub frame_id: Option<i64>,
    /// The console's line.
    pub text: String,
    /// The cursor's column in it (UTF-16 units, from 1 unless the client said 0).
    pub column: i64,
    /// The line of `text` the cursor is on, when the text has several (from 1 unless
    /// the client said 0; absent: the first).
    pub line: Option<i64>,
}

/// One completion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompletionItem {
    /// The word.
    pub label: String,
    /// Where the replaced text starts in the line.
    pub start: i64,
    /// How many units it replaces.
    pub length: i64,
}

/// `completions`' body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompletionsBody {
    /// The candidates, in order.
    pub targets: Vec<CompletionItem>,
}
