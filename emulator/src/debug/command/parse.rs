//! Text to [`Command`]: every argument is parsed here, once, and a fault is reported with
//! its column and the command's usage.

use super::error::HELP_HINT;
use super::help::{self, canonical, help_topic, HELP, QUIT};
use super::{
    Command, DisplaySpec, ExpectOp, Info, LaneColumns, LaneReg, LastWriteTarget, ListArg, Location,
    MemRef, Numbers, ParseError, RegRef, SetTarget, WatchWhere,
};
use crate::debug::breakpoint::{Filters, WatchKind};
use crate::debug::expr::{self, Expr, ParsedExpr};
use crate::memory::Space;

/// One line being parsed: the whole line, so a fault in any part of it is placed by
/// column.
#[derive(Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    name: &'static str,
}

impl<'a> Line<'a> {
    /// The 1-based character column where `part` (a slice of the line) starts, plus
    /// `offset` bytes into it.
    fn column(&self, part: &str, offset: usize) -> usize {
        let start = (part.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        let at = (start + offset).min(self.text.len());
        self.text
            .get(..at)
            .map_or(at, |before| before.chars().count())
            + 1
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.name, message)
    }

    /// A fault at `part` (a slice of the line).
    fn error_at(&self, part: &str, message: impl Into<String>) -> ParseError {
        self.error(message).at(self.column(part, 0))
    }

    fn number(&self, s: &str) -> Result<u64, ParseError> {
        self.number_at_most(s, u64::MAX)
    }

    /// A number of at most `max`: every numeric argument is read here, so a word that is
    /// no number and a number too large for its type (or its argument) each say so, in one
    /// wording, never silently truncated.
    fn number_at_most(&self, s: &str, max: u64) -> Result<u64, ParseError> {
        let s = s.trim();
        self.one_word("number", s, |w| expr::parse_u64(w).is_ok())?;
        match expr::parse_u64(s) {
            Ok(v) if v <= max => Ok(v),
            Ok(_) | Err(expr::NumberError::TooLarge) => {
                Err(self.error_at(s, expr::too_large(s, max)))
            }
            Err(expr::NumberError::NotANumber) => {
                Err(self.error_at(s, format!("`{s}` is not a number")))
            }
        }
    }

    /// Refuses a second word after one `first` accepts as a `what` (`lane 1 2`,
    /// `disassemble 0 4`), naming it, where the argument is one word.
    fn one_word(
        &self,
        what: &str,
        s: &str,
        first: impl FnOnce(&str) -> bool,
    ) -> Result<(), ParseError> {
        match s.split_once(char::is_whitespace) {
            Some((word, extra)) if first(word) => {
                let extra = extra.trim_start();
                let next = extra.split_whitespace().next().unwrap_or(extra);
                Err(self.error_at(
                    extra,
                    format!("unexpected `{next}` after the {what} `{word}`"),
                ))
            }
            _ => Ok(()),
        }
    }

    /// A lane number, 0-31: every lane argument is read here, so a lane out of range says
    /// so in one wording, however large.
    fn lane(&self, s: &str) -> Result<u8, ParseError> {
        let n = self.number(s)?;
        u8::try_from(n)
            .ok()
            .filter(|&n| usize::from(n) < crate::wave::LANES)
            .ok_or_else(|| self.error_at(s.trim(), format!("lane {n} out of range (0-31)")))
    }

    /// A number that must fit in 32 bits (ids, counts).
    fn number32(&self, s: &str) -> Result<u32, ParseError> {
        let v = self.number_at_most(s, u32::MAX.into())?;
        u32::try_from(v)
            .map_err(|_| self.error_at(s.trim(), expr::too_large(s.trim(), u32::MAX.into())))
    }

    /// An expression; `what` names it in the message (`bad expression`, `bad condition`).
    fn expr(&self, what: &str, s: &str) -> Result<ParsedExpr, ParseError> {
        let s = s.trim();
        ParsedExpr::parse(s).map_err(|e| self.expr_error(format!("{what} `{s}`"), s, &e))
    }

    /// A parse error `e` of the expression `part` (a slice of the line), after `head`:
    /// its column is the line's, in characters, as every column a message names.
    fn expr_error(&self, head: String, part: &str, e: &expr::ExprError) -> ParseError {
        let column = self.column(part, e.pos.min(part.len()));
        let at = if e.pos == expr::NO_POS {
            String::new()
        } else {
            format!(" (at column {column})")
        };
        self.error(format!("{head}: {}{at}", e.message)).at(column)
    }

    /// A location as `break`, `advance` and `disassemble` take it: numbers are addresses.
    fn location(&self, s: &str) -> Result<Location, ParseError> {
        self.location_of(s, false)
    }

    /// A location; with `lines` (`list`), a bare number is a line. A fault is placed at
    /// its column (a bad token of a `*EXPR`).
    fn location_of(&self, s: &str, lines: bool) -> Result<Location, ParseError> {
        let s = s.trim();
        location(s, lines).or_else(|b| {
            // A good location then a stray word names the word, not the whole as bad.
            self.one_word("location", s, |w| location(w, lines).is_ok())?;
            let column = self.column(s, b.offset);
            Err(self.error(b.text(|_| column)).at(column))
        })
    }
}

/// Parses a location as `break`, `advance` and `disassemble` take it (`loop`, `loop+8`,
/// `*0x40`, `0x40`, `k.s:12`, `k.s:loop`): what sessions store and front ends may read
/// back. The error is the message.
pub fn parse_location(text: &str) -> Result<Location, String> {
    let t = text.trim();
    location(text, false).map_err(|b| b.text(|offset| char_column(t, offset)))
}

/// The 1-based character column of byte `offset` of `text`.
fn char_column(text: &str, offset: usize) -> usize {
    let at = offset.min(text.len());
    text.get(..at).map_or(at, |before| before.chars().count()) + 1
}

/// Parses a memory reference as commands write it, `[SPACE:]ADDR` (the space defaults to
/// global, the address is an expression), of `len` bytes: what a front end reads from a
/// field its user typed (a DAP client's data breakpoint or memory reference). The error is
/// the message.
pub fn parse_mem_ref(text: &str, len: u64) -> Result<MemRef, String> {
    let (space, addr) = space_prefix(text)?;
    let addr =
        ParsedExpr::parse(addr).map_err(|e| format!("bad expression `{}`: {e}", addr.trim()))?;
    Ok(MemRef { space, addr, len })
}

/// Parses a display as `info display` lists it and sessions store it: `EXPR` or
/// `/F EXPR`. The error is the message.
pub fn parse_display(text: &str) -> Result<DisplaySpec, String> {
    let t = text.trim();
    let (format, e) = match t.strip_prefix('/') {
        Some(rest) => {
            let (f, e) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            // Sessions of earlier versions hold any letters here (`/s`): a display whose
            // format means nothing now is shown in its natural form.
            (display_letter(f).ok().flatten(), e)
        }
        None => (None, t),
    };
    let expr = ParsedExpr::parse(e).map_err(|x| format!("bad expression `{}`: {x}", e.trim()))?;
    Ok(DisplaySpec { format, expr })
}

/// Why a text is not a location: the message, and the byte offset of the fault in the
/// trimmed text (0 when the whole is at fault).
struct BadLocation {
    message: String,
    /// Byte offset of the fault in the location's (trimmed) text.
    offset: usize,
    /// Whether the message names the fault's column (a bad token of a `*EXPR`): the
    /// caller adds it, counted in characters of what the user typed (the command line's,
    /// or the location's when it stands alone).
    column: bool,
}

impl From<String> for BadLocation {
    fn from(message: String) -> BadLocation {
        BadLocation {
            message,
            offset: 0,
            column: false,
        }
    }
}

impl BadLocation {
    /// The message, with the fault's column when it names one: `column` of the offset.
    fn text(self, column: impl FnOnce(usize) -> usize) -> String {
        if self.column {
            format!("{} (at column {})", self.message, column(self.offset))
        } else {
            self.message
        }
    }
}

/// A location; with `lines`, a bare decimal number is a source line (`list 12`), else an
/// address (`break 0x40`, `break 64`). `*EXPR` is gdb's address expression (`*0x40`,
/// `*pc`, `*(0x30 + 8)`); a file name with spaces is quoted as gdb takes it
/// (`'sub dir/k.cl':3`, `"sub dir/k.cl":3`).
fn location(text: &str, lines: bool) -> Result<Location, BadLocation> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('*') {
        return address_location(t, rest);
    }
    // `:LINE` is a line of the kernel's own file, named by no file.
    if let Some(n) = t
        .strip_prefix(':')
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    {
        let line = n
            .parse::<u64>()
            .map_err(|_| format!("line {}", expr::too_large(n, u64::MAX)))?;
        return Ok(Location::Line { file: None, line });
    }
    // FILE:LINE or FILE:LABEL names the kernel's own file (checked when resolved); a
    // quoted FILE may hold spaces and colons.
    let (file, spot) = match quoted_file(t)? {
        Some((f, rest)) => (Some(f), rest),
        None => match t.rsplit_once(':') {
            Some((f, rest)) if !f.is_empty() && !f.starts_with('*') => {
                (Some(f.to_string()), rest.trim())
            }
            _ => (None, t),
        },
    };
    Ok(plain_location(t, file, spot, lines)?)
}

/// `text` split at the first `sep` outside quotes (`list 'a,b.cl':3,8` splits after `3`).
fn split_unquoted(text: &str, sep: char) -> Option<(&str, &str)> {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c == sep => return Some((&text[..i], &text[i + c.len_utf8()..])),
            _ => {}
        }
    }
    None
}

/// `'FILE':REST` or `"FILE":REST`: the file and the text after the colon; `None` when `t`
/// starts with no quote.
fn quoted_file(t: &str) -> Result<Option<(String, &str)>, BadLocation> {
    let Some(q) = t.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
        return Ok(None);
    };
    let inner = &t[1..];
    let Some(end) = inner.find(q) else {
        return Err(format!("no closing {q} in `{t}`").into());
    };
    let (name, after) = (&inner[..end], &inner[end + 1..]);
    if name.trim().is_empty() {
        return Err(format!("no file name between the quotes in `{t}`").into());
    }
    match after.strip_prefix(':') {
        Some(rest) if !rest.trim().is_empty() => Ok(Some((name.to_string(), rest.trim()))),
        _ => Err(BadLocation {
            message: format!("`{t}` needs `:LINE` or `:LABEL` after the quoted file name"),
            offset: end + 2,
            column: false,
        }),
    }
}

/// A line, an address or a label with an offset, after any file name.
fn plain_location(
    t: &str,
    file: Option<String>,
    spot: &str,
    lines: bool,
) -> Result<Location, String> {
    let digits = !spot.is_empty() && spot.bytes().all(|b| b.is_ascii_digit());
    if digits && (lines || file.is_some()) {
        let line = spot
            .parse::<u64>()
            .map_err(|_| format!("line {}", expr::too_large(spot, u64::MAX)))?;
        return Ok(Location::Line { file, line });
    }
    let bare = spot.trim_start_matches('*');
    let (base, offset) = match bare.split_once('+') {
        Some((b, o)) => (
            b.trim(),
            match expr::parse_u64(o.trim()) {
                Ok(o) => o,
                Err(expr::NumberError::TooLarge) => {
                    return Err(format!("offset {}", expr::too_large(o.trim(), u64::MAX)))
                }
                Err(expr::NumberError::NotANumber) => return Err(format!("bad offset in `{t}`")),
            },
        ),
        None => (bare, 0),
    };
    if expr::parse_u64(base) == Err(expr::NumberError::TooLarge) {
        return Err(format!("address {}", expr::too_large(base, u64::MAX)));
    }
    if let Some(a) = expr::parse_number(base) {
        if file.is_some() {
            return Err(format!("bad location `{t}`"));
        }
        return Ok(Location::Address((a as u64).wrapping_add(offset)));
    }
    // A label as the assembler names one: `list *-` is no label `-` (it would show as
    // `list -`, another command).
    if !crate::asm::is_ident(base) {
        return Err(format!("bad location `{t}`"));
    }
    Ok(Location::Label {
        file,
        name: base.to_string(),
        offset,
    })
}

/// `*EXPR` (`t` whole, `rest` after the star): an address or a label with an offset as
/// before (`*0x40`, `*loop+8`: a label, as every location names one), anything else an
/// expression evaluated for the selected wave when the command runs (`*pc`,
/// `*(0x30 + 8)`, `*u4`).
fn address_location(t: &str, rest: &str) -> Result<Location, BadLocation> {
    let r = rest.trim();
    if r.is_empty() {
        return Err(format!("`*` needs an address expression (`*0x40`, `*pc`) in `{t}`").into());
    }
    match plain_location(t, None, r, false) {
        Ok(l @ Location::Address(_)) => return Ok(l),
        Err(m) if m.starts_with("address ") || m.starts_with("offset ") => return Err(m.into()),
        // A name the expression language reads as a register (`*pc`, `*v3`) is one.
        Ok(l @ Location::Label { .. })
            if matches!(&l, Location::Label { name, .. }
                if matches!(expr::parse(name), Ok(Expr::Label(_)))) =>
        {
            return Ok(l)
        }
        _ => {}
    }
    ParsedExpr::parse(r).map(Location::Expr).map_err(|e| {
        let offset = (r.as_ptr() as usize - t.as_ptr() as usize) + e.pos.min(r.len());
        BadLocation {
            message: format!("bad location `{t}`: {}", e.message),
            offset,
            column: true,
        }
    })
}

/// Splits `[SPACE:]REST` (the space defaults to global); `Err` names an unknown space.
fn space_prefix(text: &str) -> Result<(Space, &str), String> {
    let t = text.trim();
    match t.split_once(':') {
        Some(("global", a)) => Ok((Space::Global, a)),
        Some(("shared", a)) => Ok((Space::Shared, a)),
        Some(("scratch", a)) => Ok((Space::Scratch, a)),
        Some((s, _)) => Err(format!("unknown space `{s}` (global, shared, scratch)")),
        None => Ok((Space::Global, t)),
    }
}

/// Trailing `wave N`, `workgroup N|all` and `lane N` filters split off a text.
struct Split<'a> {
    rest: &'a str,
    filters: Filters,
    /// `workgroup N` (`Some(Some(N))`) or `workgroup all` (`Some(None)`).
    group: Option<Option<u32>>,
}

fn split_filters<'a>(l: &Line<'_>, mut text: &'a str) -> Result<Split<'a>, ParseError> {
    let mut f = Filters::default();
    let mut group: Option<Option<u32>> = None;
    loop {
        let t = text.trim_end();
        let Some((head, last)) = t.rsplit_once(char::is_whitespace) else {
            break;
        };
        let (head2, key) = head
            .trim_end()
            .rsplit_once(char::is_whitespace)
            .unwrap_or(("", head.trim_end()));
        // A word inside a quoted file name is no filter (`break 'a wave 3.cl':2`).
        if open_quote(head2).is_some() {
            break;
        }
        let twice = |what: &str| Err(l.error_at(key, format!("`{what}` is given twice")));
        match key {
            "wave" if f.wave.is_some() => return twice("wave"),
            "lane" if f.lane.is_some() => return twice("lane"),
            "workgroup" | "wg" if group.is_some() => return twice("workgroup"),
            "wave" => f.wave = Some(l.number32(last)?),
            "lane" => f.lane = Some(l.lane(last)?),
            "workgroup" | "wg" if last == "all" => group = Some(None),
            "workgroup" | "wg" => {
                let g = l.number32(last)?;
                f.workgroup = Some(g);
                group = Some(Some(g));
            }
            _ => break,
        }
        text = head2;
    }
    Ok(Split {
        rest: text.trim(),
        filters: f,
        group,
    })
}

/// The filters given before and after a condition, together; one given twice is an error.
fn merge_filters(l: &Line<'_>, a: Filters, b: Filters) -> Result<Filters, ParseError> {
    let twice = |what: &str| Err(l.error(format!("`{what}` is given twice")));
    if a.wave.is_some() && b.wave.is_some() {
        return twice("wave");
    }
    if a.workgroup.is_some() && b.workgroup.is_some() {
        return twice("workgroup");
    }
    if a.lane.is_some() && b.lane.is_some() {
        return twice("lane");
    }
    Ok(Filters {
        wave: a.wave.or(b.wave),
        workgroup: a.workgroup.or(b.workgroup),
        lane: a.lane.or(b.lane),
    })
}

/// Splits `... if EXPR` into the part before and the condition.
fn split_if(text: &str) -> (&str, Option<&str>) {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("if ") {
        return ("", Some(rest.trim()));
    }
    // `if` with nothing after it: a condition left out, not part of the location.
    if t == "if" {
        return ("", Some(""));
    }
    if let Some(head) = t.strip_suffix(" if") {
        return (head.trim(), Some(""));
    }
    // The first ` if ` outside quotes (a quoted file name may hold one).
    let at = t
        .match_indices(" if ")
        .map(|(i, _)| i)
        .find(|&i| open_quote(&t[..i]).is_none());
    match at {
        Some(i) => (t[..i].trim(), Some(t[i + 4..].trim())),
        None => (t, None),
    }
}

/// The quote left open at the end of `text`, if one is (`'` or `"`, as `split_unquoted`
/// pairs them).
fn open_quote(text: &str) -> Option<char> {
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    quote
}

/// A point's target with its filters before and after `if COND`: `(target, condition,
/// filters, workgroup)`.
type Guarded<'a> = (&'a str, Option<&'a str>, Filters, Option<Option<u32>>);

/// Numbers and ranges `N-M` separated by spaces (`delete 1 4-6`); none for every one.
fn numbers(l: &Line<'_>, rest: &str) -> Result<Numbers, ParseError> {
    let mut ids = Vec::new();
    for word in rest.split_whitespace() {
        let range = match word.split_once('-') {
            Some((a, b)) if !a.is_empty() => {
                let (a, b) = (l.number32(a)?, l.number32(b)?);
                if a > b {
                    return Err(l.error_at(word, format!("inverted range `{word}`")));
                }
                (a, b)
            }
            _ => {
                let n = l.number32(word)?;
                (n, n)
            }
        };
        ids.push(range);
    }
    Ok(Numbers(ids))
}

fn guarded<'a>(l: &Line<'_>, rest: &'a str) -> Result<Guarded<'a>, ParseError> {
    // Filters go after the condition or, as gdb's `thread N`, before `if`.
    let after = split_filters(l, rest)?;
    let (head, condition) = split_if(after.rest);
    if condition.is_some_and(str::is_empty) {
        return Err(l.error("`if` needs a condition (as gdb's: an expression, true to stop)"));
    }
    let before = split_filters(l, head)?;
    let filters = merge_filters(l, before.filters, after.filters)?;
    let group = match (before.group, after.group) {
        (Some(_), Some(_)) => return Err(l.error("`workgroup` is given twice")),
        (a, b) => a.or(b),
    };
    Ok((before.rest, condition, filters, group))
}

fn condition(l: &Line<'_>, text: Option<&str>) -> Result<Option<ParsedExpr>, ParseError> {
    text.map(|c| l.expr("bad condition", c)).transpose()
}

/// The command `word` is plausibly a typo of, for an unknown command's message: the
/// nearest of the commands' names and their aliases of two letters or more (gdb's words:
/// `bactrace` suggests `backtrace`, `wher` `where`, `nxt` `next`), a name before an alias
/// at the same distance.
///
/// A name is accepted within an edit distance of about half the longer word, and the
/// distance is at least the difference in length: a word of more than twice the longest
/// name's characters (plus 4) is no typo of any, and gets no suggestion without computing
/// a distance (which took 10 s for a 10 MB word). Below that, names too far in length are
/// left out before any distance is computed.
fn suggestion(word: &str) -> Option<&'static str> {
    let longest = HELP.iter().map(|e| e.name.len()).max().unwrap_or(0);
    let bound = 2 * longest + 4;
    // Counted up to the bound only, so a huge word costs no more than a short one.
    let len = word.chars().take(bound + 1).count();
    if len > bound {
        return None;
    }
    let limit = |n: &str| (n.len().max(word.len()) / 2).max(2);
    HELP.iter()
        .chain(std::iter::once(&QUIT))
        .flat_map(|e| {
            std::iter::once((0, e.name)).chain(
                e.aliases
                    .iter()
                    .filter(|a| a.chars().count() >= 2)
                    .map(|a| (1, *a)),
            )
        })
        // A name too far in length is not asked about.
        .filter(|(_, n)| len.abs_diff(n.chars().count()) <= limit(n))
        .map(|(alias, n)| (crate::isa::edit_distance(word, n), alias, n))
        .filter(|(d, _, n)| *d <= limit(n))
        .min()
        .map(|(_, _, n)| n)
}

/// The refusal of an argument given to a command that takes none (`name` as the user
/// would write it, `info waves` say), naming the first word of `rest`, with that word;
/// `None` when `rest` is empty. The command language and the GDB server's own monitor
/// commands refuse in the same words.
pub fn unexpected_argument<'a>(name: &str, rest: &'a str) -> Option<(&'a str, String)> {
    let extra = rest.split_whitespace().next()?;
    Some((
        extra,
        format!("`{name}` takes no argument (unexpected `{extra}`)"),
    ))
}

/// Parses one command line. Empty lines and `#` comments give `Ok(None)`.
pub fn parse(line: &str) -> Result<Option<Command>, ParseError> {
    let text = line.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let (head, rest) = text
        .split_once(char::is_whitespace)
        .map_or((text, ""), |(h, r)| (h, r.trim()));
    let (word, slash) = head
        .split_once('/')
        .map_or((head, None), |(w, s)| (w, Some(s)));
    let Some(name) = canonical(word) else {
        if QUIT.is_named(word) {
            return Err(ParseError {
                message: format!(
                    "`{word}` ends an interactive session (the REPL, the TUI); there is none to end here"
                ),
                column: Some(1),
                usage: Some(HELP_HINT),
            });
        }
        let near = suggestion(word);
        return Err(ParseError {
            message: crate::clip_quoted(format!(
                "unknown command `{word}`{}",
                near.map(|n| format!(" (did you mean `{n}`?)"))
                    .unwrap_or_default()
            )),
            column: Some(1),
            usage: Some(HELP_HINT),
        });
    };
    let l = Line { text: line, name };
    if slash.is_some() && !matches!(name, "print" | "x" | "display") {
        return Err(l.error_at(head, format!("`{name}` takes no /FORMAT")));
    }
    let need = |what: &str| -> Result<(), ParseError> {
        if rest.is_empty() {
            Err(l.error(format!("`{name}` needs {what}")))
        } else {
            Ok(())
        }
    };
    let optional_id = |s: &str| -> Result<Option<u32>, ParseError> {
        if s.is_empty() {
            Ok(None)
        } else {
            l.number32(s).map(Some)
        }
    };
    let count_or_one = |s: &str| if s.is_empty() { Ok(1) } else { l.number(s) };
    // A command that takes no argument refuses one, naming it (never ignores it).
    let bare = |cmd: Command| -> Result<Command, ParseError> {
        match unexpected_argument(name, rest) {
            None => Ok(cmd),
            Some((extra, refusal)) => Err(l.error_at(extra, refusal)),
        }
    };
    let cmd = match name {
        "break" | "tbreak" => {
            need("a location")?;
            let (target, cond, filters, _) = guarded(&l, rest)?;
            if target.is_empty() {
                return Err(l.error(format!("bad location `{target}`")));
            }
            Command::Break {
                location: l.location(target)?,
                condition: condition(&l, cond)?,
                filters,
                temporary: name == "tbreak",
            }
        }
        // gdb's optional word: `delete breakpoints 2`, `disable breakpoints`.
        "delete" | "disable" | "enable" => {
            let rest = match rest.split_once(char::is_whitespace) {
                Some(("breakpoints", more)) => more.trim_start(),
                _ if rest == "breakpoints" => "",
                _ => rest,
            };
            let ids = numbers(&l, rest)?;
            match name {
                "delete" => Command::Delete(ids),
                _ => Command::Enable(ids, name == "enable"),
            }
        }
        "ignore" => {
            let (a, b) = rest
                .split_once(char::is_whitespace)
                .ok_or_else(|| l.error("needs a number and a count"))?;
            Command::Ignore(l.number32(a)?, l.number32(b)?)
        }
        "condition" => {
            need("a breakpoint number")?;
            let (n, e) = rest
                .split_once(char::is_whitespace)
                .map_or((rest, ""), |(a, b)| (a, b.trim()));
            let e = (!e.is_empty()).then_some(e);
            Command::Condition(l.number32(n)?, condition(&l, e)?)
        }
        "watch" | "rwatch" | "awatch" => {
            need("an address")?;
            let kind = match name {
                "watch" => WatchKind::Write,
                "rwatch" => WatchKind::Read,
                _ => WatchKind::Access,
            };
            let (target, cond, filters, group) = guarded(&l, rest)?;
            let mut parts = target.split_whitespace();
            let at = parts.next().ok_or_else(|| l.error("needs an address"))?;
            let len = match parts.next() {
                Some(n) => l.number(n)?,
                None => 4,
            };
            if let Some(extra) = parts.next() {
                return Err(l.error_at(extra, format!("unexpected text in `{target}`")));
            }
            let (space, addr) = space_prefix(at).map_err(|m| l.error_at(at, m))?;
            // A filter names an instance of the space; one the space does not have would
            // be dropped silently, so it is refused (a condition restricts by wave).
            let stray = match space {
                Space::Global => [
                    ("wave", filters.wave.is_some()),
                    ("lane", filters.lane.is_some()),
                    ("workgroup", group.is_some()),
                ],
                Space::Shared => [
                    ("wave", filters.wave.is_some()),
                    ("lane", filters.lane.is_some()),
                    ("", false),
                ],
                Space::Scratch => [("workgroup", group.is_some()), ("", false), ("", false)],
            };
            if let Some((what, _)) = stray.iter().find(|(_, given)| *given) {
                return Err(l.error(format!(
                    "`{what}` does not apply to {} memory: shared takes `workgroup N|all`, scratch `wave N` and `lane N` (a condition such as `if wave == 3` restricts any watchpoint)",
                    space.name()
                )));
            }
            let place = match space {
                Space::Global => WatchWhere::Global,
                Space::Shared => WatchWhere::Shared(group),
                Space::Scratch => WatchWhere::Scratch(filters.wave, filters.lane),
            };
            Command::Watch {
                kind,
                place,
                addr: l.expr("bad expression", addr)?,
                len,
                condition: condition(&l, cond)?,
            }
        }
        "continue" => bare(Command::Continue)?,
        "stepi" => {
            let word = |w: &str| {
                rest.strip_prefix(w)
                    .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
                    .map(str::trim)
            };
            if let Some(r) = word("all") {
                Command::StepiAll(count_or_one(r)?)
            } else if let Some(r) = word("alone") {
                Command::StepiAlone(count_or_one(r)?)
            } else {
                Command::Stepi(count_or_one(rest)?)
            }
        }
        "step" => Command::Step(count_or_one(rest)?),
        "next" => Command::Next(count_or_one(rest)?),
        "until" if rest.is_empty() => Command::Until(None),
        "until" => Command::Until(Some(l.location(rest)?)),
        "reverse-stepi" => Command::ReverseStepi(count_or_one(rest)?),
        "reverse-step" => Command::ReverseStep(count_or_one(rest)?),
        "reverse-next" => Command::ReverseNext(count_or_one(rest)?),
        "reverse-continue" => bare(Command::ReverseContinue)?,
        "last-write" => {
            need("a memory address or a register")?;
            Command::LastWrite(last_write_target(&l, rest)?)
        }
        "goto" => {
            need("an instruction count")?;
            Command::Goto(l.number(rest)?)
        }
        "finding" => {
            need("a finding number (info findings lists them)")?;
            let (n, word) = rest
                .split_once(char::is_whitespace)
                .map_or((rest, ""), |(n, w)| (n, w.trim()));
            let side = match word {
                "" => None,
                w => Some(crate::debug::FindingSide::parse(w).ok_or_else(|| {
                    l.error_at(w, format!("`{w}` is not a side (first or second)"))
                })?),
            };
            Command::Finding {
                number: l.number(n)?,
                side,
            }
        }
        "advance" => {
            need("a location")?;
            if rest == "barrier" {
                Command::AdvanceBarrier
            } else {
                Command::Advance(l.location(rest)?)
            }
        }
        "finish" => bare(Command::Finish)?,
        "reverse-finish" => bare(Command::ReverseFinish)?,
        "interrupt" => bare(Command::Interrupt)?,
        "restart" | "run" | "start" | "backtrace" => bare(match name {
            "restart" => Command::Restart,
            "run" => Command::Run,
            "start" => Command::Start,
            _ => Command::Backtrace,
        })?,
        "frame" => Command::Frame(optional_id(rest)?),
        "up" => Command::Up(if rest.is_empty() {
            1
        } else {
            l.number32(rest)?
        }),
        "down" => Command::Down(if rest.is_empty() {
            1
        } else {
            l.number32(rest)?
        }),
        "why" => bare(Command::Why)?,
        // Without an id, the selected wave (as gdb's `thread` shows the current thread).
        "wave" => Command::Wave(optional_id(rest)?),
        "lane" => {
            need("a lane")?;
            Command::Lane(l.lane(rest)?.into())
        }
        "info" => {
            need(&format!("a topic: {}", info_topic_list()))?;
            let (what, arg) = rest
                .split_once(char::is_whitespace)
                .map_or((rest, ""), |(a, b)| (a, b.trim()));
            let Some(topic) = info_topic(what) else {
                return Err(l.error_at(what, format!("unknown `info {what}`")));
            };
            let no_argument = |name: &str| match unexpected_argument(&format!("info {name}"), arg) {
                None => Ok(()),
                Some((extra, refusal)) => Err(l.error_at(extra, refusal)),
            };
            Command::Info(match topic.name {
                "waves" | "threads" => {
                    no_argument(topic.name)?;
                    Info::Waves
                }
                "lanes" => Info::Lanes(lane_columns(&l, arg)?),
                "frame" => {
                    no_argument("frame")?;
                    Info::Frame
                }
                "registers" => Info::Registers(
                    (!arg.is_empty())
                        .then(|| l.expr("bad expression", arg))
                        .transpose()?,
                ),
                "breakpoints" => {
                    no_argument("breakpoints")?;
                    Info::Breakpoints
                }
                "watchpoints" => {
                    no_argument("watchpoints")?;
                    Info::Watchpoints
                }
                "changes" => {
                    no_argument("changes")?;
                    Info::Changes
                }
                "display" => {
                    no_argument("display")?;
                    Info::Display
                }
                "history" => {
                    no_argument("history")?;
                    Info::History
                }
                "findings" => {
                    no_argument("findings")?;
                    Info::Findings
                }
                "buffers" => {
                    no_argument("buffers")?;
                    Info::Buffers
                }
                "labels" => {
                    no_argument("labels")?;
                    Info::Labels
                }
                "line" => Info::Line((!arg.is_empty()).then(|| l.location(arg)).transpose()?),
                "locals" => {
                    no_argument("locals")?;
                    Info::Locals
                }
                "source" => {
                    no_argument("source")?;
                    Info::Source
                }
                // Every name of the table has an arm (a test parses each).
                other => return Err(l.error_at(what, format!("unknown `info {other}`"))),
            })
        }
        "print" => {
            need("an expression")?;
            Command::Print {
                format: print_format(&l, slash)?,
                expr: l.expr("bad expression", rest)?,
            }
        }
        "x" => {
            need("an address")?;
            let spec = slash.unwrap_or("");
            let digits = spec.bytes().take_while(u8::is_ascii_digit).count();
            let count = if digits == 0 {
                1
            } else {
                l.number(&spec[..digits])?
            };
            let (mut format, mut size) = ('x', 4);
            for c in spec[digits..].chars() {
                match c {
                    'x' | 'd' | 'u' | 't' | 'f' | 'c' | 'o' | 'i' => format = c,
                    'b' => size = 1,
                    'h' => size = 2,
                    'w' => size = 4,
                    'g' => size = 8,
                    _ => {
                        return Err(l.error_at(head, format!("unknown format or size letter `{c}`")))
                    }
                }
            }
            if count == 0 || count > 4096 {
                return Err(l.error_at(head, "count must be 1 to 4096"));
            }
            if format == 'i' {
                // Instructions: code has one space and fixed sizes (a size letter is moot).
                Command::ExamineCode {
                    count,
                    addr: l.expr("bad expression", rest)?,
                }
            } else {
                let (space, addr) = space_prefix(rest).map_err(|m| l.error_at(rest, m))?;
                Command::Examine {
                    count,
                    format,
                    size,
                    space,
                    addr: l.expr("bad expression", addr)?,
                }
            }
        }
        "set" => set_command(&l, rest)?,
        "disassemble" => {
            Command::Disassemble((!rest.is_empty()).then(|| l.location(rest)).transpose()?)
        }
        "list" => Command::List(match rest {
            "" => None,
            "-" => Some(ListArg::Before),
            a => match split_unquoted(a, ',') {
                Some((first, last)) => {
                    let side = |s: &str| {
                        let s = s.trim();
                        (!s.is_empty()).then(|| l.location_of(s, true)).transpose()
                    };
                    let (first, mut last) = (side(first)?, side(last)?);
                    // As gdb: a bare LAST is a line of FIRST's file (`list k.cl:3,8`).
                    if let (
                        Some(Location::Line { file: Some(f), .. }),
                        Some(Location::Line {
                            file: file @ None, ..
                        }),
                    ) = (&first, &mut last)
                    {
                        *file = Some(f.clone());
                    }
                    if first.is_none() && last.is_none() {
                        return Err(l.error_at(a, "`list ,` needs a first or a last line"));
                    }
                    Some(ListArg::Range(first, last))
                }
                None => Some(ListArg::Around(l.location_of(a, true)?)),
            },
        }),
        "context" => {
            if !rest.is_empty() {
                return Err(l.error_at(
                    rest,
                    "`context` takes no argument (set context-sections chooses what it shows)",
                ));
            }
            Command::Context
        }
        "expect" => expect_command(&l, rest)?,
        "display" => {
            // `display/x v1` and `display /x v1` alike.
            let (slash, rest) = match (slash, rest.strip_prefix('/')) {
                (None, Some(r)) => {
                    let (f, e) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
                    (Some(f), e.trim())
                }
                _ => (slash, rest),
            };
            if rest.is_empty() && slash.is_none() {
                Command::Display(None)
            } else if rest.is_empty() {
                return Err(l.error("`display` needs an expression"));
            } else {
                Command::Display(Some(DisplaySpec {
                    format: display_format(&l, slash)?,
                    expr: l.expr("bad expression", rest)?,
                }))
            }
        }
        "undisplay" => Command::Undisplay(numbers(&l, rest)?),
        "save" | "load" => {
            need("a file name")?;
            // One pair of quotes keeps spaces at the ends (`save " x"`).
            let file = rest
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .unwrap_or(rest)
                .to_string();
            if file.is_empty() {
                return Err(l.error(format!("`{name}` needs a file name")));
            }
            if name == "save" {
                Command::Save(file)
            } else {
                Command::Load(file)
            }
        }
        "help" => Command::Help(match rest {
            "" => None,
            t => Some(help_topic(t).ok_or_else(|| help::unknown_topic(t))?),
        }),
        _ => return Err(l.error("not implemented")),
    };
    Ok(Some(cmd))
}

/// `info lanes [/F] [REG...]`: a format letter (`x d u f`), then registers `vN`, `uN` or
/// `exec`.
fn lane_columns(l: &Line<'_>, arg: &str) -> Result<LaneColumns, ParseError> {
    let mut words = arg.split_whitespace().peekable();
    let format = match words.peek().and_then(|w| w.strip_prefix('/')) {
        Some(f) => {
            let f_text = words.next().unwrap_or_default();
            match f {
                "x" | "d" | "u" | "f" => f.chars().next(),
                _ => return Err(l.error_at(f_text, format!("unknown format `/{f}` (x d u f)"))),
            }
        }
        None => None,
    };
    let reg = |w: &str, prefix: char, max: usize| -> Option<u8> {
        let n: usize = w.strip_prefix(prefix)?.parse().ok()?;
        (n < max).then_some(n as u8)
    };
    let regs = words
        .map(|w| {
            let w2 = w.trim_start_matches('$');
            if w2 == "exec" {
                Ok(LaneReg::Exec)
            } else if let Some(r) = reg(w2, 'v', crate::wave::VREGS) {
                Ok(LaneReg::Vector(r))
            } else if let Some(r) = reg(w2, 'u', crate::wave::UREGS) {
                Ok(LaneReg::Uniform(r))
            } else {
                Err(l.error_at(
                    w,
                    format!("`{w}` is not a register (v0-v127, u0-u63, exec)"),
                ))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LaneColumns { format, regs })
}

/// `/FMT` of `display`, as gdb takes it: a count, size letters and a format letter
/// (`/x`, `/xw`, `/4xw`); the format letter is what a display shows with.
fn display_format(l: &Line<'_>, slash: Option<&str>) -> Result<Option<char>, ParseError> {
    match slash {
        None => Ok(None),
        Some(f) => display_letter(f).map_err(|m| l.error_at(f, m)),
    }
}

/// The format letter of a display's `/FMT` (the last of `x d u t f c o i`; none is
/// `None`): `i` shows the instruction at the address, as gdb's `display/i $pc`.
fn display_letter(f: &str) -> Result<Option<char>, String> {
    if f.is_empty()
        || !f
            .chars()
            .all(|c| c.is_ascii_digit() || "xdutfcoibhwg".contains(c))
    {
        return Err(format!("unknown format `/{f}` (x d u t f c o, i)"));
    }
    Ok(f.chars().rev().find(|c| "xdutfcoi".contains(*c)))
}

/// `/F` of `print`.
fn print_format(l: &Line<'_>, slash: Option<&str>) -> Result<Option<char>, ParseError> {
    match slash {
        None => Ok(None),
        Some(f) if f.len() == 1 && "xdutfco".contains(f) => Ok(f.chars().next()),
        Some(f) => Err(l.error_at(f, format!("unknown format `/{f}` (x d u t f c o)"))),
    }
}

/// `last-write uN | vN | vN[L] | [SPACE:]ADDR [LEN]`.
fn last_write_target(l: &Line<'_>, t: &str) -> Result<LastWriteTarget, ParseError> {
    let reg = |s: &str, prefix: char, max: usize| -> Option<u8> {
        let n: usize = s.strip_prefix(prefix)?.parse().ok()?;
        (n < max).then_some(n as u8)
    };
    if let Some(r) = reg(t, 'u', crate::wave::UREGS) {
        return Ok(LastWriteTarget::Uniform(r));
    }
    if t == "exec" {
        return Ok(LastWriteTarget::Exec);
    }
    // The expression language's other names are not memory: never read as an address.
    if let Some(why) = not_written(t) {
        return Err(l.error_at(t, format!("`last-write {t}`: {why}")));
    }
    if let Some(r) = reg(t, 'v', crate::wave::VREGS) {
        return Ok(LastWriteTarget::Vector { reg: r, lane: None });
    }
    let lane = t
        .strip_suffix(']')
        .and_then(|x| x.split_once('['))
        .and_then(|(r, n)| Some((reg(r, 'v', crate::wave::VREGS)?, n)));
    if let Some((r, n)) = lane {
        return Ok(LastWriteTarget::Vector {
            reg: r,
            lane: Some(l.lane(n)?),
        });
    }
    let mut parts = t.split_whitespace();
    let at = parts.next().unwrap_or_default();
    let len = match parts.next() {
        Some(n) => n
            .parse::<u64>()
            .ok()
            .filter(|n| (1..=16).contains(n))
            .ok_or_else(|| l.error_at(n, format!("bad length `{n}` (1 to 16 bytes)")))?,
        None => 4,
    };
    if let Some(extra) = parts.next() {
        return Err(l.error_at(extra, format!("unexpected text in `{t}`")));
    }
    let (space, addr) = space_prefix(at).map_err(|m| l.error_at(at, m))?;
    Ok(LastWriteTarget::Memory(MemRef {
        space,
        addr: l.expr("bad expression", addr)?,
        len,
    }))
}

/// Why `last-write` refuses a name of the expression language that is not memory, a
/// vector, uniform register or EXEC (the others it takes): `pc`, `lane`, `wave`.
fn not_written(t: &str) -> Option<&'static str> {
    Some(match t {
        "pc" => "every instruction of the wave writes `pc` (each moves it): the instruction before is `reverse-stepi`",
        "lane" => "`lane` is the selected lane's number, not a register the kernel writes",
        "wave" => "`wave` is the selected wave's number, not a register the kernel writes",
        _ => return None,
    })
}

/// A boolean setting's value as gdb reads one: `on`, `1`, `yes`, `enable` or nothing;
/// `off`, `0`, `no`, `disable`.
fn boolean(v: &str) -> Option<bool> {
    match v {
        "" | "on" | "1" | "yes" | "enable" => Some(true),
        "off" | "0" | "no" | "disable" => Some(false),
        _ => None,
    }
}

/// An `info` topic: the name `info`'s usage and completion list, and the other words the
/// parser takes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InfoTopic {
    /// The topic's name.
    pub name: &'static str,
    /// Other words for it (`b` for `breakpoints`).
    pub aliases: &'static [&'static str],
}

const fn topic(name: &'static str, aliases: &'static [&'static str]) -> InfoTopic {
    InfoTopic { name, aliases }
}

/// The `info` topics, in the order the usage lists them: the one table the parser reads
/// and completion offers.
pub const INFO_TOPICS: &[InfoTopic] = &[
    topic("waves", &["w"]),
    topic("threads", &[]),
    topic("lanes", &["l"]),
    topic("registers", &["reg", "r", "all-registers"]),
    topic("frame", &["f"]),
    topic("breakpoints", &["break", "b"]),
    topic("watchpoints", &["watch"]),
    topic("changes", &[]),
    topic("display", &["displays"]),
    topic("history", &["record"]),
    topic("findings", &["checks"]),
    topic("buffers", &["buffer"]),
    topic("labels", &["label", "symbols"]),
    topic("line", &[]),
    topic("source", &[]),
    topic("locals", &[]),
];

/// The `info` topic `word` names (by name or alias).
pub fn info_topic(word: &str) -> Option<&'static InfoTopic> {
    INFO_TOPICS
        .iter()
        .find(|t| t.name == word || t.aliases.contains(&word))
}

/// The topics' names as a sentence: `waves, threads, ... or locals`.
fn info_topic_list() -> String {
    let names: Vec<&str> = INFO_TOPICS.iter().map(|t| t.name).collect();
    match names.split_last() {
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn set_command(l: &Line<'_>, rest: &str) -> Result<Command, ParseError> {
    let setting = |key: &str| {
        rest.strip_prefix(key)
            .filter(|v| v.is_empty() || v.starts_with(char::is_whitespace))
            .map(str::trim)
    };
    if let Some(v) = setting("history-size") {
        if v.is_empty() {
            return Err(l.error("set history-size MIB"));
        }
        // gdb's 0 and `unlimited` mean no bound; snapshot memory needs one here.
        if v == "unlimited" || expr::parse_u64(v) == Ok(0) {
            return Err(l.error_at(v, format!("`set history-size {v}`: snapshot memory needs a bound (MiB, at least 1; the default is 256)")));
        }
        let max = crate::debug::history::MAX_HISTORY_MIB;
        return Ok(Command::HistorySize(l.number_at_most(v, max)?));
    }
    if let Some(v) = setting("check") {
        let usage = "set check races|sync|init|hazards|xlane|all [on|off]";
        let mut words = v.split_whitespace();
        let group = words
            .next()
            .and_then(crate::check::CheckGroup::parse)
            .ok_or_else(|| l.error(usage))?;
        let on = match (words.next(), words.next()) {
            (None, None) => true,
            (Some(w), None) => boolean(w).ok_or_else(|| l.error(usage))?,
            _ => return Err(l.error(usage)),
        };
        return Ok(Command::Check(group, on));
    }
    if let Some(v) = setting("context-sections") {
        if v.is_empty() {
            return Err(l.error("set context-sections SECTION,...|all"));
        }
        let sections = crate::debug::context::parse_sections(v).map_err(|e| l.error_at(v, e))?;
        return Ok(Command::ContextSections(sections));
    }
    if let Some(v) = setting("context") {
        return boolean(v)
            .map(Command::SetContext)
            .ok_or_else(|| l.error("set context [on|off]"));
    }
    if let Some(v) = setting("width") {
        return match v {
            "unlimited" => Ok(Command::SetWidth(0)),
            "" => Err(l.error("set width N|unlimited")),
            n => Ok(Command::SetWidth(l.number32(n)?)),
        };
    }
    if let Some(v) = setting("confirm") {
        return boolean(v)
            .map(Command::SetConfirm)
            .ok_or_else(|| l.error("set confirm [on|off]"));
    }
    if let Some(v) = setting("format") {
        use crate::debug::panes::{FormatTarget, NumberFormat};
        let usage = "set format lanes|registers|memory hex|unsigned|signed|f32";
        let mut words = v.split_whitespace();
        return match (
            words.next().and_then(FormatTarget::parse),
            words.next().and_then(NumberFormat::parse),
            words.next(),
        ) {
            (Some(target), Some(format), None) => Ok(Command::SetFormat(target, format)),
            _ => Err(l.error(usage)),
        };
    }
    if let Some(v) = setting("split") {
        use crate::debug::panes::{SplitTarget, Splits};
        let usage = "set split left|source|console|lanes PERCENT|default (PERCENT 10-90)";
        let mut words = v.split_whitespace();
        let target = words.next().and_then(SplitTarget::parse);
        let share = match words.next() {
            Some("default") => Some(None),
            Some(n) => n
                .parse::<u16>()
                .ok()
                .filter(|p| Splits::RANGE.contains(p))
                .map(Some),
            None => None,
        };
        return match (target, share, words.next()) {
            (Some(t), Some(p), None) => Ok(Command::SetSplit(t, p)),
            _ => Err(l.error(usage)),
        };
    }
    if let Some(v) = setting("memory-unit") {
        return crate::debug::panes::MemoryUnit::parse(v)
            .map(Command::SetMemoryUnit)
            .ok_or_else(|| l.error("set memory-unit bytes|words"));
    }
    if let Some(v) = setting("scheduler-locking") {
        return match v {
            "on" | "step" => Ok(Command::SchedulerLocking(true)),
            "off" => Ok(Command::SchedulerLocking(false)),
            _ => Err(l.error("set scheduler-locking on|off")),
        };
    }
    let body = rest.strip_prefix("var ").unwrap_or(rest);
    let (target, value) = body
        .split_once('=')
        .ok_or_else(|| l.error("needs `TARGET = VALUE`"))?;
    let (target, value) = (target.trim(), value.trim());
    if target.is_empty() || value.is_empty() {
        return Err(l.error("needs `TARGET = VALUE`"));
    }
    Ok(Command::Set {
        target: set_target(l, target)?,
        value: l.expr("bad expression", value)?,
    })
}

/// `set`'s target: `SPACE:ADDR`, or a register (`$` prefixes allowed, as in gdb).
fn set_target(l: &Line<'_>, target: &str) -> Result<SetTarget, ParseError> {
    let t = target.trim_start_matches('$');
    if t.contains(':') {
        let (space, addr) = space_prefix(t).map_err(|m| l.error_at(t, m))?;
        return Ok(SetTarget::Memory(MemRef {
            space,
            addr: l.expr("bad expression", addr)?,
            len: 4,
        }));
    }
    let parsed = expr::parse(t).map_err(|e| l.expr_error(format!("bad target `{t}`"), t, &e))?;
    let reg = match parsed {
        Expr::VReg(reg, None) => RegRef::Vector(reg),
        Expr::VReg(reg, Some(_)) => {
            // The index as written, between the register's brackets.
            let index = t
                .split_once('[')
                .and_then(|(_, i)| i.rsplit_once(']'))
                .map_or("", |(i, _)| i);
            RegRef::VectorLane(reg, l.expr("bad expression", index)?)
        }
        Expr::UReg(reg) => RegRef::Uniform(reg),
        Expr::Exec => RegRef::Exec,
        Expr::Pc => RegRef::Pc,
        _ => {
            return Err(l.error_at(
                t,
                format!(
                    "cannot assign to `{t}` (registers vN, vN[L], uN, exec, pc, or SPACE:ADDR)"
                ),
            ))
        }
    };
    Ok(SetTarget::Register(reg))
}

/// `expect EXPR OP VALUE`: one expression whose root operator is the comparison, so
/// `16 == 1 << 4` compares 16 with 1 << 4, as C would parse it.
fn expect_command(l: &Line<'_>, rest: &str) -> Result<Command, ParseError> {
    if rest.is_empty() {
        return Err(l.error("`expect` needs an assertion"));
    }
    let usage = "needs a comparison: EXPR OP VALUE with OP one of == != < <= > >=";
    const CMP: [&str; 6] = ["==", "!=", "<=", ">=", "<", ">"];
    if CMP.iter().any(|t| rest.starts_with(t) || rest.ends_with(t)) {
        return Err(l.error("needs both sides of the comparison"));
    }
    let (_, root) = expr::parse_with_root(rest)
        .map_err(|e| l.expr_error(format!("bad expression `{rest}`"), rest, &e))?;
    let Some((i, j)) = root else {
        return Err(l.error(usage));
    };
    let op = match &rest[i..j] {
        "==" => ExpectOp::Eq,
        "!=" => ExpectOp::Ne,
        "<=" => ExpectOp::Le,
        ">=" => ExpectOp::Ge,
        "<" => ExpectOp::Lt,
        ">" => ExpectOp::Gt,
        other => {
            return Err(l.error_at(
                &rest[i..j],
                format!("{usage} (the outermost operator is `{other}`; add parentheses)"),
            ))
        }
    };
    Ok(Command::Expect {
        lhs: l.expr("bad expression", &rest[..i])?,
        op,
        rhs: l.expr("bad expression", &rest[j..])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Parsing is linear: a 10 MB line parses in a small fraction of this (the bound is
    /// 100 times what it takes, so a loaded machine does not fail it; the quadratic
    /// suggestion took 10 s).
    const BOUND: Duration = Duration::from_secs(2);

    fn timed(line: &str) -> (Result<Option<Command>, ParseError>, Duration) {
        let start = Instant::now();
        let r = parse(line);
        (r, start.elapsed())
    }

    #[test]
    fn a_huge_unknown_command_word_gets_no_suggestion_in_bounded_time() {
        for len in [1 << 20, 10 << 20] {
            let (r, took) = timed(&"x".repeat(len));
            let e = r.expect_err("unknown command");
            assert!(
                e.message.starts_with("unknown command `xxx"),
                "{}",
                &e.message[..40]
            );
            assert!(!e.message.contains("did you mean"));
            assert!(took < BOUND, "{len} bytes took {took:?}");
        }
        // Typos still get their suggestion, including a non-ASCII one near the bound.
        let e = parse("brek main").expect_err("typo");
        assert!(e.message.contains("did you mean `break`?"), "{}", e.message);
        let e = parse("contïnue").expect_err("typo");
        assert!(
            e.message.contains("did you mean `continue`?"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_huge_argument_parses_in_bounded_time() {
        for arg in [
            "x".repeat(10 << 20),
            "1+".repeat(5 << 20) + "1",
            "(".repeat(10 << 20),
            "-".repeat(10 << 20) + "1",
        ] {
            let (r, took) = timed(&format!("print {arg}"));
            assert!(r.is_ok() || r.is_err());
            assert!(took < BOUND, "{} bytes took {took:?}", arg.len());
        }
    }
}
