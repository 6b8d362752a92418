//! Expressions of the command language: registers (`v3`, `v3[5]`, `u2`, `exec`, `pc`),
//! `lane`, `wave`, memory (`global:ADDR`, `shared:ADDR`, `scratch:ADDR`, a u32), labels,
//! numbers and C operators. Values are 64-bit signed integers; registers and memory read as
//! unsigned 32-bit values, and `s32(x)` reads them as signed (`s32(v3) < 0`).

use std::fmt;

use crate::machine::Machine;
use crate::memory::Space;

/// Unary operators.
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
    /// A literal.
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
    /// A u32 in memory.
    Mem(Space, Box<Expr>),
    /// A label's address.
    Label(String),
    /// Unary operation.
    Unary(UnOp, Box<Expr>),
    /// Binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Function call.
    Call(Func, Box<Expr>),
}

/// A parse or evaluation error, with the byte offset it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// Byte offset in the expression text.
    pub pos: usize,
    /// What is wrong.
    pub message: String,
}

/// The position of an error that is not about the text (an evaluation error).
pub const NO_POS: usize = usize::MAX;

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pos == NO_POS {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} (at column {})", self.message, self.pos + 1)
        }
    }
}

impl std::error::Error for ExprError {}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

fn err<T>(pos: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError {
        pos,
        message: message.into(),
    })
}

/// Parses an expression.
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    let mut p = Parser { s: text, pos: 0 };
    let e = p.binary(0)?;
    p.ws();
    if p.pos < p.s.len() {
        return err(p.pos, format!("unexpected `{}`", &p.s[p.pos..]));
    }
    Ok(e)
}

const LEVELS: &[&[(&str, BinOp)]] = &[
    &[("||", BinOp::Or)],
    &[("&&", BinOp::And)],
    &[("|", BinOp::BitOr)],
    &[("^", BinOp::BitXor)],
    &[("&", BinOp::BitAnd)],
    &[("==", BinOp::Eq), ("!=", BinOp::Ne)],
    &[
        ("<=", BinOp::Le),
        (">=", BinOp::Ge),
        ("<<", BinOp::Shl),
        (">>", BinOp::Shr),
        ("<", BinOp::Lt),
        (">", BinOp::Gt),
    ],
    &[("+", BinOp::Add), ("-", BinOp::Sub)],
    &[("*", BinOp::Mul), ("/", BinOp::Div), ("%", BinOp::Rem)],
];

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s[self.pos..].starts_with(|c: char| c.is_whitespace()) {
            self.pos += 1;
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

    /// Precedence climbing; shifts share the relational level's table but bind tighter.
    fn binary(&mut self, level: usize) -> Result<Expr, ExprError> {
        if level >= LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            self.ws();
            let rest = &self.s[self.pos..];
            let found = LEVELS[level].iter().find(|(t, _)| {
                rest.starts_with(t)
                    // `|` must not match `||`, `&` not `&&`, `<` not `<<`.
                    && !(t.len() == 1 && rest[1..].starts_with(*t))
            });
            let Some(&(tok, op)) = found else {
                return Ok(lhs);
            };
            if matches!(op, BinOp::Shl | BinOp::Shr) {
                // Shifts bind tighter than comparisons: parse them as a sub-level.
                self.pos += tok.len();
                let rhs = self.binary(level + 1)?;
                lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
                continue;
            }
            self.pos += tok.len();
            let rhs = self.binary(level + 1)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        self.ws();
        for (t, op) in [("-", UnOp::Neg), ("!", UnOp::Not), ("~", UnOp::BitNot)] {
            if self.s[self.pos..].starts_with(t) && !self.s[self.pos..].starts_with("!=") {
                self.pos += 1;
                return Ok(Expr::Unary(op, Box::new(self.unary()?)));
            }
        }
        self.primary()
    }

    fn word(&mut self) -> &str {
        let start = self.pos;
        while self.s[self.pos..]
            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
        {
            self.pos += self.s[self.pos..].chars().next().map_or(1, char::len_utf8);
        }
        &self.s[start..self.pos]
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        self.ws();
        let start = self.pos;
        if self.eat("(") {
            let e = self.binary(0)?;
            if !self.eat(")") {
                return err(self.pos, "expected `)`");
            }
            return Ok(e);
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
        if w.starts_with(|c: char| c.is_ascii_digit()) {
            return parse_number(&w).map(Expr::Num).ok_or(ExprError {
                pos: start,
                message: format!("bad number `{w}`"),
            });
        }
        if let Some(space) = match w.as_str() {
            "global" => Some(Space::Global),
            "shared" => Some(Space::Shared),
            "scratch" => Some(Space::Scratch),
            _ => None,
        } {
            if self.eat(":") {
                return Ok(Expr::Mem(space, Box::new(self.primary()?)));
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
            let e = self.binary(0)?;
            if !self.eat(")") {
                return err(self.pos, "expected `)`");
            }
            return Ok(Expr::Call(f, Box::new(e)));
        }
        if let Some(n) = reg_number(&w, 'v', 128) {
            if self.eat("[") {
                let idx = self.binary(0)?;
                if !self.eat("]") {
                    return err(self.pos, "expected `]`");
                }
                return Ok(Expr::VReg(n, Some(Box::new(idx))));
            }
            return Ok(Expr::VReg(n, None));
        }
        if let Some(n) = reg_number(&w, 'u', 64) {
            return Ok(Expr::UReg(n));
        }
        Ok(match w.as_str() {
            "exec" => Expr::Exec,
            "pc" => Expr::Pc,
            "lane" => Expr::Lane,
            "wave" => Expr::Wave,
            _ if w.starts_with('v')
                || w.starts_with('u')
                    && w[1..].bytes().all(|c| c.is_ascii_digit())
                    && w.len() > 1 =>
            {
                return err(start, format!("no register `{w}` (v0-v127, u0-u63)"))
            }
            _ => Expr::Label(w),
        })
    }
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
        return None;
    }
    u64::from_str_radix(&digits, radix).ok().map(|v| v as i64)
}

impl Expr {
    /// Whether the value depends on the lane (mentions a vector register without an index,
    /// or `lane`, or scratch memory).
    pub fn per_lane(&self) -> bool {
        match self {
            Expr::VReg(_, None) | Expr::Lane | Expr::Mem(Space::Scratch, _) => true,
            Expr::VReg(_, Some(i)) => i.per_lane(),
            Expr::Mem(_, a) | Expr::Unary(_, a) | Expr::Call(_, a) => a.per_lane(),
            Expr::Binary(_, a, b) => a.per_lane() || b.per_lane(),
            _ => false,
        }
    }

    /// Evaluates the expression for wave `wave` (index) and lane `lane`.
    pub fn eval(&self, m: &Machine, wave: usize, lane: Option<u8>) -> Result<i64, ExprError> {
        let w = m.waves.get(wave).ok_or(ExprError {
            pos: 0,
            message: format!("no wave {wave}"),
        })?;
        let need_lane = || {
            lane.ok_or(ExprError { pos: NO_POS, message: "this expression needs a lane: select one with `lane N` or index the register, e.g. v3[5]".into() })
        };
        Ok(match self {
            Expr::Num(n) => *n,
            Expr::VReg(r, None) => w.v[*r as usize][need_lane()? as usize] as i64,
            Expr::VReg(r, Some(i)) => {
                let l = i.eval(m, wave, lane)?;
                if !(0..32).contains(&l) {
                    return err(NO_POS, format!("lane {l} out of range (0-31)"));
                }
                w.v[*r as usize][l as usize] as i64
            }
            Expr::UReg(r) => w.u[*r as usize] as i64,
            Expr::Exec => w.exec as i64,
            Expr::Pc => w.pc as i64,
            Expr::Lane => need_lane()? as i64,
            Expr::Wave => w.id as i64,
            Expr::Mem(space, a) => {
                let addr = a.eval(m, wave, lane)? as u64;
                let mut b = [0u8; 4];
                let l = if *space == Space::Scratch {
                    need_lane()?
                } else {
                    lane.unwrap_or(0)
                };
                m.read_space(*space, wave, l, addr, &mut b)
                    .map_err(|e| ExprError {
                        pos: 0,
                        message: e.to_string(),
                    })?;
                u32::from_le_bytes(b) as i64
            }
            Expr::Label(name) => match m.program().labels.get(name) {
                Some(a) => *a as i64,
                None => {
                    return err(
                        0,
                        format!(
                        "no symbol `{name}` (registers are v0-v127, u0-u63, exec, pc, lane, wave)"
                    ),
                    )
                }
            },
            Expr::Unary(op, a) => {
                let v = a.eval(m, wave, lane)?;
                match op {
                    UnOp::Neg => v.wrapping_neg(),
                    UnOp::Not => (v == 0) as i64,
                    UnOp::BitNot => !v,
                }
            }
            Expr::Call(f, a) => {
                let v = a.eval(m, wave, lane)?;
                match f {
                    Func::S32 => v as i32 as i64,
                    Func::U32 => v as u32 as i64,
                }
            }
            Expr::Binary(op, a, b) => {
                let x = a.eval(m, wave, lane)?;
                // Short-circuit like C.
                match op {
                    BinOp::And if x == 0 => return Ok(0),
                    BinOp::Or if x != 0 => return Ok(1),
                    _ => {}
                }
                let y = b.eval(m, wave, lane)?;
                match op {
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::Div | BinOp::Rem if y == 0 => return err(NO_POS, "division by zero"),
                    BinOp::Div => x.wrapping_div(y),
                    BinOp::Rem => x.wrapping_rem(y),
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Shl => x.wrapping_shl(y as u32),
                    BinOp::Shr => x.wrapping_shr(y as u32),
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
                }
            }
        })
    }
}
