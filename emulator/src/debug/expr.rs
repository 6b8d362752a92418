//! Expressions of the command language: registers (`v3`, `v3[5]`, `u2`, `exec`, `pc`),
//! `lane`, `wave`, memory (`global:ADDR`, `shared:ADDR`, `scratch:ADDR`, a u32), source
//! variables of `.var` live at the wave's PC (`xi`, `xi[5]`, in their declared type),
//! buffer names (the buffer's base address), labels (their code address), numbers and C
//! operators. A live variable shadows a buffer or label of its name; register names and
//! `exec`, `pc`, `lane`, `wave` are never variables. A name that is both a buffer and a
//! label is the buffer in an expression (locations, as `break` takes them, are always
//! labels). Values are 64-bit signed integers, or doubles where a float variable or a
//! literal like `1.5` takes part (C's usual conversions); registers and memory read as
//! unsigned 32-bit values, and `s32(x)` reads them as signed (`s32(v3) < 0`).

use std::fmt;

use super::locals::{live_var, not_live_message, per_lane, typed_value, var_bits};
use crate::machine::Machine;
use crate::memory::Space;

/// Prefix operators, applied to a 64-bit signed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
}

/// Binary operators, C precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

/// Built-in functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// Sign-extends the low 32 bits.
    S32,
    /// The low 32 bits, unsigned.
    U32,
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// A number: decimal, `0x`, `0b` or `0o`, `_` separators allowed.
    Num(i64),
    /// `vN` (the current lane) or `vN[lane]`.
    VReg(u8, Option<Box<Expr>>),
    /// `uN`.
    UReg(u8),
    /// `exec`.
    Exec,
    /// `pc`.
    Pc,
    /// The current lane number.
    Lane,
    /// The wave's global id.
    Wave,
    /// `SPACE:ADDR`: the little-endian u32 at ADDR (shared: the wave's workgroup's window;
    /// scratch: the current lane's).
    Mem(Space, Box<Expr>),
    /// A name: a variable live at the PC, else a buffer's base address, else a label's
    /// address ([`symbol`]).
    Label(String),
    /// `NAME[LANE]`: one lane of a per-lane variable.
    Index(String, Box<Expr>),
    /// A floating-point literal (`1.5`), as its IEEE double bits.
    Float(u64),
    /// A prefix operator applied to its operand.
    Unary(UnOp, Box<Expr>),
    /// A binary operator on two operands, C semantics on 64-bit signed values.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `s32(x)` or `u32(x)`: the function applied to its argument.
    Call(Func, Box<Expr>),
}

/// An expression as written and as parsed. Commands hold both: they print back as the
/// user wrote them, and messages quote that text. Two are equal when their text is.
#[derive(Debug, Clone)]
pub struct ParsedExpr {
    /// The text, trimmed.
    pub text: String,
    /// Its parse.
    pub expr: Expr,
}

impl ParsedExpr {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<ParsedExpr, ExprError> {
        let text = text.trim();
        Ok(ParsedExpr {
            expr: parse(text)?,
            text: text.to_string(),
        })
    }

    /// A number a front end holds (an address under a cursor), shown in hex.
    pub fn number(value: u64) -> ParsedExpr {
        ParsedExpr {
            text: format!("{value:#x}"),
            expr: Expr::Num(value as i64),
        }
    }
}

impl PartialEq for ParsedExpr {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for ParsedExpr {}

impl fmt::Display for ParsedExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A parse or evaluation error, with the byte offset it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// Byte offset in the expression text.
    pub pos: usize,
    /// The 1-based character column of `pos` in the expression text, as the message
    /// names it (0 with [`NO_POS`]).
    pub column: usize,
    /// What is wrong (e.g. "bad number `0xg`"), without the column; `pos` locates it.
    pub message: String,
}

/// The position of an error that is not about the text (an evaluation error).
pub const NO_POS: usize = usize::MAX;

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pos == NO_POS {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} (at column {})", self.message, self.column)
        }
    }
}

impl std::error::Error for ExprError {}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    /// The span of the last binary operator built outside any brackets: after a whole
    /// expression is parsed, that is the root's operator (the root is built last).
    top_op: Option<(usize, usize)>,
    /// How many brackets, calls and unary operators enclose the current position.
    nesting: usize,
}

fn err<T>(pos: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError {
        pos,
        column: 0,
        message: crate::clip_quoted(message.into()),
    })
}

/// The deepest expression tree the parser builds. Evaluation and dropping recurse over the
/// tree, so an unbounded depth (3,000 parentheses in a `monitor print`, or a chain of
/// thousands of `+`) would overflow the stack, which no `catch_unwind` can recover.
pub const MAX_DEPTH: usize = 256;

/// A parsed subtree and its height (a leaf is 1).
type Sub = (Expr, usize);

/// Parses an expression; [`MAX_DEPTH`] bounds its nesting.
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    parse_with_root(text).map(|(e, _)| e)
}

/// Parses an expression and returns, with it, the byte span of its root operator when the
/// root is a binary operation (`expect A OP B` splits there, so `16 == 1 << 4` is `16` and
/// `1 << 4`).
pub fn parse_with_root(text: &str) -> Result<(Expr, Option<(usize, usize)>), ExprError> {
    parse_root(text).map_err(|mut e| {
        // Byte offsets count a multi-byte character as several columns: count characters.
        if e.pos != NO_POS {
            let at = e.pos.min(text.len());
            e.column = text.get(..at).map_or(at, |b| b.chars().count()) + 1;
        }
        e
    })
}

fn parse_root(text: &str) -> Result<(Expr, Option<(usize, usize)>), ExprError> {
    let mut p = Parser {
        s: text,
        pos: 0,
        top_op: None,
        nesting: 0,
    };
    let (e, _) = p.binary(0)?;
    p.ws();
    if p.pos < p.s.len() {
        return err(p.pos, format!("unexpected `{}`", &p.s[p.pos..]));
    }
    let root = match e {
        Expr::Binary(..) => p.top_op,
        _ => None,
    };
    Ok((e, root))
}

/// Binary operators by C precedence: one level per row of C's table, loosest first (a
/// higher level binds tighter). Two-character tokens come first so that the longest
/// token matches (`<<` before `<`, `||` before `|`).
const OPERATORS: &[(&str, BinOp, usize)] = &[
    ("||", BinOp::Or, 0),
    ("&&", BinOp::And, 1),
    ("==", BinOp::Eq, 5),
    ("!=", BinOp::Ne, 5),
    ("<=", BinOp::Le, 6),
    (">=", BinOp::Ge, 6),
    ("<<", BinOp::Shl, 7),
    (">>", BinOp::Shr, 7),
    ("|", BinOp::BitOr, 2),
    ("^", BinOp::BitXor, 3),
    ("&", BinOp::BitAnd, 4),
    ("<", BinOp::Lt, 6),
    (">", BinOp::Gt, 6),
    ("+", BinOp::Add, 8),
    ("-", BinOp::Sub, 8),
    ("*", BinOp::Mul, 9),
    ("/", BinOp::Div, 9),
    ("%", BinOp::Rem, 9),
];

impl Parser<'_> {
    fn ws(&mut self) {
        // Step by characters: a no-break space is whitespace of two bytes.
        while let Some(c) = self.s[self.pos..].chars().next() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    /// A node over children of height `h`: checks the depth bound.
    fn node(&self, e: Expr, h: usize, at: usize) -> Result<Sub, ExprError> {
        if h + 1 > MAX_DEPTH {
            return err(
                at,
                format!(
                    "expression deeper than {MAX_DEPTH} levels of operators, brackets and calls"
                ),
            );
        }
        Ok((e, h + 1))
    }

    /// Enters a bracket, call or unary operator (bounded, so the parser's own recursion
    /// is bounded too).
    fn enter(&mut self, at: usize) -> Result<(), ExprError> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return err(
                at,
                format!(
                    "expression deeper than {MAX_DEPTH} levels of operators, brackets and calls"
                ),
            );
        }
        Ok(())
    }

    /// Precedence climbing, left-associative at every level: operators of level
    /// `min_level` or tighter. One frame per nesting of tighter operators, not one per
    /// level, so the recursion per bracket stays small.
    fn binary(&mut self, min_level: usize) -> Result<Sub, ExprError> {
        let (mut lhs, mut h) = self.unary()?;
        loop {
            self.ws();
            let rest = &self.s[self.pos..];
            let Some(&(tok, op, level)) = OPERATORS.iter().find(|(t, ..)| rest.starts_with(t))
            else {
                return Ok((lhs, h));
            };
            if level < min_level {
                return Ok((lhs, h));
            }
            let at = self.pos;
            self.pos += tok.len();
            let (rhs, rh) = self.binary(level + 1)?;
            if self.nesting == 0 {
                self.top_op = Some((at, at + tok.len()));
            }
            (lhs, h) = self.node(
                Expr::Binary(op, Box::new(lhs), Box::new(rhs)),
                h.max(rh),
                at,
            )?;
        }
    }

    fn unary(&mut self) -> Result<Sub, ExprError> {
        self.ws();
        let at = self.pos;
        for (t, op) in [("-", UnOp::Neg), ("!", UnOp::Not), ("~", UnOp::BitNot)] {
            if self.s[self.pos..].starts_with(t) && !self.s[self.pos..].starts_with("!=") {
                self.pos += 1;
                self.enter(at)?;
                let (a, h) = self.unary()?;
                self.nesting -= 1;
                return self.node(Expr::Unary(op, Box::new(a)), h, at);
            }
        }
        self.primary()
    }

    fn word(&mut self) -> &str {
        let start = self.pos;
        while self.s[self.pos..]
            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
        {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    /// An expression inside brackets that `close` ends.
    fn bracketed(&mut self, at: usize, close: &str) -> Result<Sub, ExprError> {
        self.enter(at)?;
        let inner = self.binary(0)?;
        self.nesting -= 1;
        if !self.eat(close) {
            return err(self.pos, format!("expected `{close}`"));
        }
        Ok(inner)
    }

    fn primary(&mut self) -> Result<Sub, ExprError> {
        self.ws();
        let start = self.pos;
        if self.eat("(") {
            return self.bracketed(start, ")");
        }
        let w = self.word().to_string();
        if w.is_empty() {
            return err(
                start,
                if self.pos >= self.s.len() {
                    "expected a value".to_string()
                } else {
                    format!("unexpected `{}`", &self.s[self.pos..])
                },
            );
        }
        let w = w.strip_prefix('$').unwrap_or(&w).to_string();
        if w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.') && !w.contains('x') {
            return w
                .parse::<f64>()
                .map(|f| (Expr::Float(f.to_bits()), 1))
                .map_err(|_| ExprError {
                    pos: start,
                    column: 0,
                    message: format!("bad number `{w}`"),
                });
        }
        if w.starts_with(|c: char| c.is_ascii_digit()) {
            return match parse_u64(&w) {
                Ok(n) => Ok((Expr::Num(n as i64), 1)),
                Err(e) => Err(ExprError {
                    pos: start,
                    column: 0,
                    message: match e {
                        NumberError::TooLarge => too_large(&w, u64::MAX),
                        NumberError::NotANumber => format!("bad number `{w}`"),
                    },
                }),
            };
        }
        if let Some(space) = match w.as_str() {
            "global" => Some(Space::Global),
            "shared" => Some(Space::Shared),
            "scratch" => Some(Space::Scratch),
            _ => None,
        } {
            if self.eat(":") {
                self.enter(start)?;
                let (a, h) = self.primary()?;
                self.nesting -= 1;
                return self.node(Expr::Mem(space, Box::new(a)), h, start);
            }
        }
        if self.eat("(") {
            let f = match w.as_str() {
                "s32" => Func::S32,
                "u32" => Func::U32,
                _ => {
                    return err(
                        start,
                        format!("unknown function `{w}` (functions: s32, u32)"),
                    )
                }
            };
            let (e, h) = self.bracketed(start, ")")?;
            return self.node(Expr::Call(f, Box::new(e)), h, start);
        }
        if let Some(n) = reg_number(&w, 'v', 128) {
            if self.eat("[") {
                let (idx, h) = self.bracketed(start, "]")?;
                return self.node(Expr::VReg(n, Some(Box::new(idx))), h, start);
            }
            return Ok((Expr::VReg(n, None), 1));
        }
        if let Some(n) = reg_number(&w, 'u', 64) {
            return Ok((Expr::UReg(n), 1));
        }
        let leaf = match w.as_str() {
            "exec" => Expr::Exec,
            "pc" => Expr::Pc,
            "lane" => Expr::Lane,
            "wave" => Expr::Wave,
            _ if (w.starts_with('v') || w.starts_with('u'))
                && w[1..].bytes().all(|c| c.is_ascii_digit())
                && w.len() > 1 =>
            {
                return err(start, format!("no register `{w}` (v0-v127, u0-u63)"))
            }
            _ if self.eat("[") => {
                let (idx, h) = self.bracketed(start, "]")?;
                return self.node(Expr::Index(w, Box::new(idx)), h, start);
            }
            _ => Expr::Label(w),
        };
        Ok((leaf, 1))
    }
}

/// What a name in an expression stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbol {
    /// A global buffer: its base address and size in bytes.
    Buffer {
        /// The buffer's first global address.
        base: u64,
        /// The buffer's size in bytes, as declared.
        size: u64,
    },
    /// A code label: its address.
    Label(u64),
}

/// Resolves a name as an expression does: a buffer's base address when a buffer has the
/// name, else a label's address. (A location, as `break`, `advance`, `disassemble` and
/// `list` take it, is always a label.)
pub fn symbol(m: &Machine, name: &str) -> Option<Symbol> {
    if let (Some(base), Some(b)) = (m.buffer_base(name), m.program().buffer(name)) {
        return Some(Symbol::Buffer { base, size: b.size });
    }
    m.program().labels.get(name).map(|a| Symbol::Label(*a))
}

fn reg_number(w: &str, prefix: char, count: u32) -> Option<u8> {
    let digits = w.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) || digits.len() > 3 {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    (n < count).then_some(n as u8)
}

/// Parses a number: decimal, `0x`, `0b`, `0o`.
pub fn parse_number(w: &str) -> Option<i64> {
    parse_u64(w).ok().map(|v| v as i64)
}

/// Why a word is not a number [`parse_u64`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    /// Not digits of its radix at all.
    NotANumber,
    /// Digits, but more than 64 bits hold.
    TooLarge,
}

/// A non-negative integer as commands write one (decimal, `0x`, `0b`, `0o`, `_` between
/// digits), telling a word that is no number from a number too large for 64 bits.
pub fn parse_u64(w: &str) -> Result<u64, NumberError> {
    let w = w.replace('_', "");
    let (digits, radix) = if let Some(h) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        (h.to_string(), 16)
    } else if let Some(b) = w.strip_prefix("0b") {
        (b.to_string(), 2)
    } else if let Some(o) = w.strip_prefix("0o") {
        (o.to_string(), 8)
    } else {
        (w.clone(), 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(NumberError::NotANumber);
    }
    u64::from_str_radix(&digits, radix).map_err(|_| NumberError::TooLarge)
}

/// The message for a number written `w` larger than `max` (its type's or its argument's
/// largest value), as every numeric argument says it.
pub fn too_large(w: &str, max: u64) -> String {
    format!("`{w}` is too large: at most {max}")
}

/// The value of an expression: an integer, or a double where a float takes part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A 64-bit signed integer.
    Int(i64),
    /// An IEEE double.
    Float(f64),
}

/// A value as a command's typed output carries it ([`crate::debug::Output::Value`]): an
/// integer or a float of its width, never a float truncated to an integer. Equality is of
/// the bits (a NaN equals itself), so outputs compare exactly.
#[derive(Debug, Clone, Copy)]
pub enum Scalar {
    /// A signed integer (an expression's value, a `u32` or `i32` variable).
    Int(i64),
    /// An unsigned 64-bit integer (a `u64` variable).
    U64(u64),
    /// An IEEE single (an `f32` variable).
    F32(f32),
    /// An IEEE double (an expression where a float takes part, an `f64` variable).
    F64(f64),
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Scalar::Int(a), Scalar::Int(b)) => a == b,
            (Scalar::U64(a), Scalar::U64(b)) => a == b,
            (Scalar::F32(a), Scalar::F32(b)) => a.to_bits() == b.to_bits(),
            (Scalar::F64(a), Scalar::F64(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Eq for Scalar {}

impl From<Value> for Scalar {
    fn from(v: Value) -> Scalar {
        match v {
            Value::Int(i) => Scalar::Int(i),
            Value::Float(f) => Scalar::F64(f),
        }
    }
}

impl std::fmt::Display for Scalar {
    /// As `print` shows it: an integer in decimal, a float as `print/f` does (C's `%g`
    /// with the digits of its width).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::U64(u) => write!(f, "{u}"),
            Scalar::F32(x) => f.write_str(&super::view::format_value(x.to_bits() as u64, 'f', 4)),
            Scalar::F64(x) => f.write_str(&super::view::format_value(x.to_bits(), 'f', 8)),
        }
    }
}

impl Value {
    /// The value as an integer (a double truncated toward zero, as C converts it).
    pub fn as_int(self) -> i64 {
        match self {
            Value::Int(i) => i,
            Value::Float(f) => f as i64,
        }
    }

    fn as_float(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }

    fn truth(self) -> bool {
        match self {
            Value::Int(i) => i != 0,
            Value::Float(f) => f != 0.0,
        }
    }
}

impl Expr {
    /// Whether the value depends on the lane at wave `wave`'s PC: [`Expr::per_lane`], or a
    /// per-lane variable live there. Breakpoint conditions are evaluated per lane when so.
    pub fn per_lane_at(&self, m: &Machine, wave: usize) -> bool {
        self.lane_bound_at(m, wave, &Expr::per_lane)
    }

    /// [`Expr::reads_lane_data`], or a per-lane variable live at wave `wave`'s PC read
    /// without a lane index.
    pub fn reads_lane_data_at(&self, m: &Machine, wave: usize) -> bool {
        self.lane_bound_at(m, wave, &Expr::reads_lane_data)
    }

    /// `own` of the expression (a question about registers and memory), or a per-lane
    /// variable live at wave `wave`'s PC named anywhere in it outside a lane index.
    fn lane_bound_at(&self, m: &Machine, wave: usize, own: &impl Fn(&Expr) -> bool) -> bool {
        match self {
            Expr::Label(name) => live_var(m, wave, name).is_some_and(|v| per_lane(&v.location)),
            Expr::Index(_, i) => i.lane_bound_at(m, wave, own),
            Expr::VReg(_, Some(a)) | Expr::Mem(_, a) | Expr::Unary(_, a) | Expr::Call(_, a) => {
                a.lane_bound_at(m, wave, own) || own(self)
            }
            Expr::Binary(_, a, b) => a.lane_bound_at(m, wave, own) || b.lane_bound_at(m, wave, own),
            _ => own(self),
        }
    }

    /// Whether the value depends on the lane (mentions a vector register without an index,
    /// or `lane`, or scratch memory).
    pub fn per_lane(&self) -> bool {
        match self {
            Expr::VReg(_, None) | Expr::Lane | Expr::Mem(Space::Scratch, _) => true,
            Expr::VReg(_, Some(i)) => i.per_lane(),
            Expr::Mem(_, a) | Expr::Unary(_, a) | Expr::Call(_, a) | Expr::Index(_, a) => {
                a.per_lane()
            }
            Expr::Binary(_, a, b) => a.per_lane() || b.per_lane(),
            _ => false,
        }
    }

    /// Whether the value depends on per-lane data: a vector register without an index or
    /// scratch memory. `print` shows such an expression for every lane; anything else,
    /// `lane` included, it evaluates at the selected lane (`p lane`, `p v3[lane]`).
    pub fn reads_lane_data(&self) -> bool {
        match self {
            Expr::VReg(_, None) | Expr::Mem(Space::Scratch, _) => true,
            Expr::VReg(_, Some(a))
            | Expr::Mem(_, a)
            | Expr::Unary(_, a)
            | Expr::Call(_, a)
            | Expr::Index(_, a) => a.reads_lane_data(),
            Expr::Binary(_, a, b) => a.reads_lane_data() || b.reads_lane_data(),
            _ => false,
        }
    }

    /// Evaluates the expression for wave `wave` (index) and lane `lane`, as an integer (a
    /// double result truncated: comparisons of floats are already 0 or 1).
    pub fn eval(&self, m: &Machine, wave: usize, lane: Option<u8>) -> Result<i64, ExprError> {
        self.eval_value(m, wave, lane).map(Value::as_int)
    }

    /// Evaluates the expression for wave `wave` (index) and lane `lane`.
    pub fn eval_value(
        &self,
        m: &Machine,
        wave: usize,
        lane: Option<u8>,
    ) -> Result<Value, ExprError> {
        let w = m.waves.get(wave).ok_or(ExprError {
            pos: 0,
            column: 0,
            message: format!("no wave {wave}"),
        })?;
        let need_lane = || {
            lane.ok_or(ExprError { pos: NO_POS, column: 0, message: "this expression needs a lane: select one with `lane N` or index the register, e.g. v3[5]".into() })
        };
        let int = |e: &Expr| e.eval_value(m, wave, lane).map(Value::as_int);
        let lane_index = |i: &Expr| -> Result<u8, ExprError> {
            let l = int(i)?;
            if !(0..32).contains(&l) {
                return err(NO_POS, format!("lane {l} out of range (0-31)"));
            }
            Ok(l as u8)
        };
        let variable = |name: &str, l: Option<u8>| -> Option<Result<Value, ExprError>> {
            let v = live_var(m, wave, name)?;
            let l = match (per_lane(&v.location), l) {
                (true, None) => return Some(need_lane().map(|_| Value::Int(0))),
                (_, l) => l.unwrap_or(0),
            };
            Some(
                var_bits(m, v, wave, l)
                    .map(|bits| typed_value(bits, v.ty))
                    .map_err(|message| ExprError {
                        pos: NO_POS,
                        column: 0,
                        message: format!("`{name}`: {message}"),
                    }),
            )
        };
        let unknown = |name: &str| {
            // Variables are named only in kernels that declare some.
            let names = if m.program().source_info.vars.is_empty() {
                "buffers and labels"
            } else {
                "variables, buffers and labels"
            };
            not_live_message(m, wave, name).unwrap_or_else(|| format!(
                "no symbol `{name}` (names are {names}; registers are v0-v127, u0-u63, exec, pc, lane, wave)"
            ))
        };
        Ok(Value::Int(match self {
            Expr::Num(n) => *n,
            Expr::Float(bits) => return Ok(Value::Float(f64::from_bits(*bits))),
            Expr::VReg(r, None) => w.v[*r as usize][need_lane()? as usize] as i64,
            Expr::VReg(r, Some(i)) => w.v[*r as usize][lane_index(i)? as usize] as i64,
            Expr::UReg(r) => w.u[*r as usize] as i64,
            Expr::Exec => w.exec as i64,
            // An exited wave's PC is the `end` it exited at, as every view shows it.
            Expr::Pc => super::view::shown_pc(m, w) as i64,
            Expr::Lane => need_lane()? as i64,
            Expr::Wave => w.id as i64,
            Expr::Mem(space, a) => {
                let addr = int(a)? as u64;
                let mut b = [0u8; 4];
                let l = if *space == Space::Scratch {
                    need_lane()?
                } else {
                    lane.unwrap_or(0)
                };
                m.read_space(*space, wave, l, addr, &mut b)
                    .map_err(|e| ExprError {
                        pos: 0,
                        column: 0,
                        message: e.to_string(),
                    })?;
                u32::from_le_bytes(b) as i64
            }
            Expr::Label(name) => {
                if let Some(v) = variable(name, lane) {
                    return v;
                }
                match symbol(m, name) {
                    Some(Symbol::Buffer { base, .. }) => base as i64,
                    Some(Symbol::Label(a)) => a as i64,
                    None => return err(0, unknown(name)),
                }
            }
            Expr::Index(name, i) => {
                let l = lane_index(i)?;
                return match variable(name, Some(l)) {
                    Some(v) => v,
                    None if symbol(m, name).is_some() => {
                        err(NO_POS, format!("`{name}` is not a per-lane variable"))
                    }
                    None => err(0, unknown(name)),
                };
            }
            Expr::Unary(op, a) => match (op, a.eval_value(m, wave, lane)?) {
                (UnOp::Neg, Value::Float(f)) => return Ok(Value::Float(-f)),
                (UnOp::Not, v) => !v.truth() as i64,
                (UnOp::BitNot, Value::Float(_)) => return err(NO_POS, "`~` needs an integer"),
                (UnOp::Neg, v) => v.as_int().wrapping_neg(),
                (UnOp::BitNot, v) => !v.as_int(),
            },
            Expr::Call(f, a) => {
                let v = int(a)?;
                match f {
                    Func::S32 => v as i32 as i64,
                    Func::U32 => v as u32 as i64,
                }
            }
            Expr::Binary(op, a, b) => {
                let x = a.eval_value(m, wave, lane)?;
                // Short-circuit like C.
                match op {
                    BinOp::And if !x.truth() => return Ok(Value::Int(0)),
                    BinOp::Or if x.truth() => return Ok(Value::Int(1)),
                    _ => {}
                }
                let y = b.eval_value(m, wave, lane)?;
                match (x, y) {
                    (Value::Int(x), Value::Int(y)) => int_op(*op, x, y)?,
                    _ => return float_op(*op, x, y),
                }
            }
        }))
    }
}

/// A binary operator on two integers, C semantics on 64-bit signed values.
fn int_op(op: BinOp, x: i64, y: i64) -> Result<i64, ExprError> {
    Ok(match op {
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div | BinOp::Rem if y == 0 => return err(NO_POS, "division by zero"),
        BinOp::Div => x.wrapping_div(y),
        BinOp::Rem => x.wrapping_rem(y),
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        // C leaves these undefined; wrapping the count would give a wrong number.
        BinOp::Shl | BinOp::Shr if !(0..64).contains(&y) => {
            return err(NO_POS, format!("shift count {y} out of range (0-63)"))
        }
        BinOp::Shl => x << y,
        BinOp::Shr => x >> y,
        BinOp::Lt => (x < y) as i64,
        BinOp::Le => (x <= y) as i64,
        BinOp::Gt => (x > y) as i64,
        BinOp::Ge => (x >= y) as i64,
        BinOp::Eq => (x == y) as i64,
        BinOp::Ne => (x != y) as i64,
        BinOp::BitAnd => x & y,
        BinOp::BitXor => x ^ y,
        BinOp::BitOr => x | y,
        BinOp::And | BinOp::Or => (y != 0) as i64,
    })
}

/// A binary operator where an operand is a double: the other converts to a double, as in
/// C; bit operators refuse.
fn float_op(op: BinOp, x: Value, y: Value) -> Result<Value, ExprError> {
    let (a, b) = (x.as_float(), y.as_float());
    Ok(match op {
        BinOp::Mul => Value::Float(a * b),
        BinOp::Div => Value::Float(a / b),
        BinOp::Rem => Value::Float(a % b),
        BinOp::Add => Value::Float(a + b),
        BinOp::Sub => Value::Float(a - b),
        BinOp::Lt => Value::Int((a < b) as i64),
        BinOp::Le => Value::Int((a <= b) as i64),
        BinOp::Gt => Value::Int((a > b) as i64),
        BinOp::Ge => Value::Int((a >= b) as i64),
        BinOp::Eq => Value::Int((a == b) as i64),
        BinOp::Ne => Value::Int((a != b) as i64),
        BinOp::And | BinOp::Or => Value::Int(y.truth() as i64),
        BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitXor | BinOp::BitOr => {
            return err(NO_POS, "bit operators need integers, not floats")
        }
    })
}
