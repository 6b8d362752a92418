//! Input: keys, mouse clicks and the wheel, pasted text, and the command line's editing
//! keys. A key goes to the first that takes it: a y/n question, the command line, the help
//! overlay, the app-wide keys (layout, zoom, focus), the focused pane (its own file's
//! `*_key`), then the keys that drive the engine (see `commands`).

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::search::SEARCHABLE;
use super::state::{App, HelpOverlay, Pane};
use super::typeahead::Typed;
use crate::completion;
use crate::editor::LineEditor;
use crate::hits::Hit;

/// What a key that needs the engine says while a run has it.
pub(super) const BUSY: &str = "A run is in progress (Esc interrupts it).";

/// A movement key as every pane reads it: the arrows, with `j`/`k`/`h` for down, up and
/// left (`l` selects lanes), and `g`/`G` for Home/End.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Motion {
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
}

impl Motion {
    /// The movement `code` means, if any.
    pub(crate) fn of(code: KeyCode) -> Option<Motion> {
        use KeyCode::*;
        Some(match code {
            Up | Char('k') => Motion::Up,
            Down | Char('j') => Motion::Down,
            Left | Char('h') => Motion::Left,
            Right => Motion::Right,
            PageUp => Motion::PageUp,
            PageDown => Motion::PageDown,
            Home | Char('g') => Motion::Home,
            End | Char('G') => Motion::End,
            _ => return None,
        })
    }

    /// Where this movement takes a cursor at `at` in a list of `n` items of which `page`
    /// show (Left and Right do not move in a list).
    pub(super) fn apply(self, at: usize, page: usize, n: usize) -> usize {
        let last = n.saturating_sub(1);
        match self {
            Motion::Up => at.saturating_sub(1),
            Motion::Down => (at + 1).min(last),
            Motion::PageUp => at.saturating_sub(page.max(1)),
            Motion::PageDown => (at + page.max(1)).min(last),
            Motion::Home => 0,
            Motion::End => last,
            Motion::Left | Motion::Right => at.min(last),
        }
    }
}

/// readline's editing keys on a line (the command line's and the search prompt's), the
/// emacs set the REPL's rustyline has. (Ctrl-H arrives as Backspace: see
/// [`App::edit_key`].)
fn edit_line(e: &mut LineEditor, code: KeyCode, ctrl: bool, alt: bool) {
    use KeyCode::*;
    match code {
        Char('b') if alt => e.word_left(),
        Char('f') if alt => e.word_right(),
        Char('d') if alt => e.delete_word_right(),
        // Other Alt keys mean nothing on the line.
        Char(_) if alt => {}
        Char('a') if ctrl => e.home(),
        Char('e') if ctrl => e.end(),
        Char('b') if ctrl => e.move_by(-1),
        Char('f') if ctrl => e.move_by(1),
        Char('d') if ctrl => e.delete(),
        Char('k') if ctrl => e.kill_to_end(),
        Char('w') if ctrl => e.delete_word(),
        Char('u') if ctrl => e.set(""),
        Char(c) if !ctrl => e.insert(&c.to_string()),
        Backspace if alt => e.delete_word(),
        Backspace => e.backspace(),
        Delete => e.delete(),
        Left if ctrl => e.word_left(),
        Right if ctrl => e.word_right(),
        Left => e.move_by(-1),
        Right => e.move_by(1),
        Home => e.home(),
        End => e.end(),
        _ => {}
    }
}

/// Whether a command line is `interrupt`, which acts on a run in progress.
fn interrupts(line: &str) -> bool {
    matches!(
        wavedbg_emulator::debug::command::parse(line),
        Ok(Some(wavedbg_emulator::debug::command::Command::Interrupt))
    )
}

impl App {
    /// Handles pasted text: into the command line (a line at a time) or the search
    /// prompt if open (see [`App::dispatch_paste`]); after what was typed ahead.
    pub fn on_paste(&mut self, text: &str) {
        if self.typeahead.is_empty() {
            self.dispatch_paste(text);
        } else {
            self.type_ahead(Typed::Paste(text.to_string()));
        }
    }

    /// Handles a key (see the module's comment for who takes it). While a run has the
    /// engine, a key that needs it waits, and so does every key after it
    /// ([`super::typeahead`]); a key that does not (focus, scrolling, the command line's
    /// editing) acts at once while nothing waits.
    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release || self.split_alt(k) {
            return;
        }
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        // Suspending, redrawing, the y/n prompts and interrupting are never kept waiting.
        let at_once = (ctrl && matches!(k.code, KeyCode::Char('z' | 'c' | 'l')))
            || k.code == KeyCode::Esc
            || self.confirm_quit
            || self.question.is_some();
        if !at_once && !self.typeahead.is_empty() {
            self.type_ahead(Typed::Key(k));
            return;
        }
        self.typeahead.refused = false;
        self.dispatch_key(k);
        if std::mem::take(&mut self.typeahead.refused) && self.is_running() {
            self.type_ahead(Typed::Key(k));
        }
        // An answer may let what waits go on.
        self.drain_typeahead();
    }

    /// Handles a key now.
    pub(super) fn dispatch_key(&mut self, k: KeyEvent) {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && k.code == KeyCode::Char('z') {
            // Whatever has the keys: the event loop suspends (it owns the terminal).
            self.suspend = true;
        } else if ctrl && k.code == KeyCode::Char('l') {
            // Whatever has the keys, as in vim and readline: the whole screen again.
            self.redraw = true;
        } else if self.confirm_quit {
            self.quit_prompt_key(k.code);
        } else if self.question.is_some() {
            // Only `y` is yes: `n`, any other key, Esc and Ctrl-C are no.
            self.answer(matches!(k.code, KeyCode::Char('y' | 'Y')));
        } else if ctrl && k.code == KeyCode::Char('c') {
            self.ctrl_c();
        } else if self.editor.is_some() || self.search.prompt.is_some() {
            self.edit_key(k);
        } else if self.help.open {
            self.help_key(k.code);
        } else if ctrl {
            self.ctrl_key(k.code);
        } else if !self.view_key(k.code) && !self.navigate(k.code) {
            self.engine_key(k.code);
        }
    }

    /// Terminals send Alt-x as Esc then x, so an Esc and a key that arrive together read
    /// as Alt-key. The panes bind no Alt keys: this takes it as the two keys it was, and
    /// returns whether it did. (The command line has readline's Alt-b/Alt-f; a y/n prompt
    /// takes the key.)
    fn split_alt(&mut self, k: KeyEvent) -> bool {
        let prompt = self.confirm_quit || self.question.is_some();
        if !k.modifiers.contains(KeyModifiers::ALT)
            || !matches!(k.code, KeyCode::Char(_))
            || self.editor.is_some()
            || self.search.prompt.is_some()
            || prompt
        {
            return false;
        }
        self.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        self.on_key(KeyEvent::new(k.code, k.modifiers - KeyModifiers::ALT));
        true
    }

    /// The answer to "quit during a run?": `y` interrupts the run and quits.
    fn quit_prompt_key(&mut self, code: KeyCode) {
        if matches!(code, KeyCode::Char('y' | 'Y')) {
            self.interrupt();
            self.quit = true;
        } else {
            self.confirm_quit = false;
            self.say("Not quitting.");
        }
    }

    /// Ctrl-C: interrupts a run, else closes the command line, else says how to quit.
    fn ctrl_c(&mut self) {
        if self.is_running() {
            self.interrupt_dropping_typeahead();
        } else if self.editor.take().is_some() {
            self.history.reset();
        } else if self.search.prompt.is_some() {
            self.search.prompt = None;
        } else {
            self.say("Ctrl-C and Esc interrupt a run; q quits.");
        }
    }

    /// Esc or Ctrl-C during a run: interrupts it and drops what was typed ahead (the user
    /// stopped; it would start again).
    fn interrupt_dropping_typeahead(&mut self) {
        let dropped = self.drop_typeahead();
        self.interrupt();
        if dropped > 0 {
            self.say(format!(
                "Interrupting... ({} typed ahead dropped)",
                wavedbg_emulator::debug::view::count(dropped as u64, "key")
            ));
        }
    }

    /// Keeps what a frame drew (where things are, for the keys and the mouse), and the
    /// help overlay's scroll as drawn at the width drawn: a resize lays the help out again
    /// once, not at every frame after it.
    pub fn drawn(&mut self, hits: crate::hits::HitMap) {
        if let (true, Some(scroll)) = (self.help.open, hits.help_scroll) {
            self.help.scroll = scroll;
            self.help.room = hits.help_room;
        }
        self.hits = hits;
    }

    /// The help overlay's keys: the movement keys scroll it; any other key closes it.
    fn help_key(&mut self, code: KeyCode) {
        let max = self.hits.help_scroll_max;
        let page = self.hits.help_rows.max(1);
        let room = self.hits.help_room;
        let s = &mut self.help.scroll;
        // Drawing clamps the scroll and keeps its entry across a resize; starting from
        // what it showed keeps `k` responsive.
        *s = crate::ui::rescroll(*s, self.help.room, room).min(max);
        self.help.room = room;
        match Motion::of(code) {
            Some(Motion::Down | Motion::Right) => *s = (*s + 1).min(max),
            Some(Motion::Up | Motion::Left) => *s = s.saturating_sub(1),
            Some(Motion::PageDown) => *s = (*s + page).min(max),
            Some(Motion::PageUp) => *s = s.saturating_sub(page),
            Some(Motion::Home) => *s = 0,
            Some(Motion::End) => *s = max,
            _ => self.help.open = false,
        }
    }

    /// Ctrl keys outside the command line: Ctrl-R restarts (the driver asks first once
    /// something has run, as for `:run`); the others mean nothing.
    fn ctrl_key(&mut self, code: KeyCode) {
        if code != KeyCode::Char('r') {
            return;
        }
        if self.is_running() {
            self.refuse_busy();
        } else {
            self.restart();
        }
    }

    /// The app-wide keys: Esc, zoom (`z`, `o`), layout (`v`), help, quit, the command
    /// line, and focus (Tab, Shift-Tab, digits). Returns whether the key was one.
    fn view_key(&mut self, code: KeyCode) -> bool {
        match code {
            KeyCode::Esc => self.escape(),
            KeyCode::Char('z') => self.toggle_zoom(),
            KeyCode::Char('o') => self.toggle_console_zoom(),
            KeyCode::Char('v') => self.cycle_layout(),
            KeyCode::Char('V') => self.cycle_source_mode(),
            KeyCode::Char(c @ ('+' | '-' | '<' | '>')) => self.resize_split(c),
            KeyCode::Char('?') | KeyCode::F(1) => {
                self.help = HelpOverlay {
                    open: true,
                    scroll: 0,
                    room: 0,
                }
            }
            KeyCode::Char('q') => self.request_quit(),
            KeyCode::Char(':') => {
                self.editor = Some(LineEditor::new());
                self.history.reset();
            }
            KeyCode::Tab => self.focus = self.focus.step(1, &self.shown_panes()),
            KeyCode::BackTab => self.focus = self.focus.step(-1, &self.shown_panes()),
            KeyCode::Char(d @ '1'..='9') => self.focus_pane(Pane::ALL[(d as u8 - b'1') as usize]),
            KeyCode::Char('0') => self.focus_pane(Pane::Locals),
            _ => return false,
        }
        true
    }

    /// Esc: interrupts a run, else clears the message and ends a maximised view.
    fn escape(&mut self) {
        if self.is_running() {
            self.interrupt_dropping_typeahead();
        } else {
            self.message = None;
            if self.zoom {
                self.unzoom();
            }
        }
    }

    /// `z`: maximises the focused pane, or restores it (where it is: a console `o`
    /// maximised stays focused, as `z` names the focused pane).
    fn toggle_zoom(&mut self) {
        self.zoom = !self.zoom;
        self.zoom_return = None;
    }

    /// `o`: the console full screen, remembering the pane to go back to and whether it
    /// was maximised (`z`, `o`, `o` gives the maximised pane back); or back.
    fn toggle_console_zoom(&mut self) {
        if self.zoom && self.focus == Pane::Console {
            self.unzoom();
        } else {
            if self.focus != Pane::Console {
                self.zoom_return = Some((self.focus, self.zoom));
            }
            self.focus = Pane::Console;
            self.zoom = true;
        }
    }

    /// The key that ends the maximised view, as its title names it: `o` for the console
    /// `o` maximised (it goes back to the pane before), else `z`.
    pub fn restore_key(&self) -> char {
        if self.focus == Pane::Console && self.zoom_return.is_some() {
            'o'
        } else {
            'z'
        }
    }

    /// `v`: the next code layout; focus moves to the code view it shows if needed.
    fn cycle_layout(&mut self) {
        self.layout = self.layout.next();
        if !self.layout.shows(self.focus) {
            self.focus = if self.focus == Pane::Code {
                Pane::Source
            } else {
                Pane::Code
            };
        }
        self.say(format!(
            "Layout {}: {} (v: {})",
            self.layout.name(),
            self.layout.what(),
            self.layout.next().what()
        ));
    }

    /// Ends a maximised view: back to the pane focused before `o` (maximised again if it
    /// was), if any.
    pub(super) fn unzoom(&mut self) {
        self.zoom = false;
        if let Some((p, zoomed)) = self.zoom_return.take() {
            if self.layout.shows(p) {
                self.focus = p;
                self.zoom = zoomed;
            }
        }
    }

    /// Hands `code` to the focused pane. Returns whether the pane used it.
    pub(super) fn navigate(&mut self, code: KeyCode) -> bool {
        // The panes `/` searches in take `n`/`N` to repeat it (Memory keeps its `n`).
        if SEARCHABLE.contains(&self.focus) {
            match code {
                KeyCode::Char('/') => return self.open_search_true(),
                KeyCode::Char('n') => return self.search_next_true(true),
                KeyCode::Char('N') => return self.search_next_true(false),
                _ => {}
            }
        } else if code == KeyCode::Char('/') {
            self.open_search();
            return true;
        }
        match self.focus {
            Pane::Code => self.code_key(code),
            Pane::Source => self.source_key(code),
            Pane::Waves => self.waves_key(code),
            Pane::Lanes => self.lanes_key(code),
            Pane::Registers => self.registers_key(code),
            Pane::Memory => self.memory_key(code),
            Pane::Breakpoints => self.breakpoints_key(code),
            Pane::Console => self.console_key(code),
            Pane::Watch => self.watch_key(code),
            Pane::Locals => self.locals_key(code),
        }
    }

    /// `/` in a searchable pane (always used).
    fn open_search_true(&mut self) -> bool {
        self.open_search();
        true
    }

    /// `n`/`N` in a searchable pane (always used).
    fn search_next_true(&mut self, forward: bool) -> bool {
        self.search_next(forward);
        true
    }

    /// Waves keys: up and down select the previous or next resident wave, PgUp/PgDn a
    /// page of waves away, Home/End the first or last. Returns whether the key was used.
    fn waves_key(&mut self, code: KeyCode) -> bool {
        let Some(motion) = Motion::of(code).filter(|m| !matches!(m, Motion::Left | Motion::Right))
        else {
            return false;
        };
        if self.is_running() {
            self.refuse_busy();
            return true;
        }
        match motion {
            // These wrap around, as `w`/`W` do.
            Motion::Down => self.select_wave_by(1),
            Motion::Up => self.select_wave_by(-1),
            _ => {
                let n = self.engine.machine().waves.len();
                let page = self.page(Pane::Waves);
                let at = self.engine.selected_wave;
                self.select_wave_index(motion.apply(at, page, n));
            }
        }
        true
    }

    /// The keys that run a command on the engine (step, continue, breakpoints, wave and
    /// lane selection); refused while a run has the engine.
    fn engine_key(&mut self, code: KeyCode) {
        use KeyCode::{Char, F};
        let action: fn(&mut App) = match code {
            F(5) | Char('c') => App::continue_run,
            F(11) | Char('s') => App::step,
            Char('S') => App::step_all,
            Char('r') => App::reverse_step,
            Char('R') => App::reverse_continue,
            F(9) | Char('b') => App::toggle_breakpoint,
            Char('a') => App::advance_to_cursor,
            Char('w') => |app| app.select_wave_by(1),
            Char('W') => |app| app.select_wave_by(-1),
            Char('l') => |app| app.select_lane_by(1),
            Char('L') => |app| app.select_lane_by(-1),
            _ => return,
        };
        if self.is_running() {
            self.refuse_busy();
        } else {
            action(self);
        }
    }

    /// The command line's keys (and the search prompt's): readline's editing keys, Up/Down
    /// through the history, Tab completion, Enter to run the line (or search), Esc (or
    /// Backspace on an empty line) to close it.
    fn edit_key(&mut self, k: KeyEvent) {
        use KeyCode::*;
        let mut k = k;
        if k.code == Char('h') && k.modifiers == KeyModifiers::CONTROL {
            // Ctrl-H is Backspace (most terminals send the same byte for both).
            k = KeyEvent::new(Backspace, KeyModifiers::NONE);
        }
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        if let Some(e) = self.search.prompt.as_mut() {
            match k.code {
                Enter => {
                    let typed = e.text().to_string();
                    self.search.prompt = None;
                    self.run_search(&typed);
                }
                Esc => self.search.prompt = None,
                Backspace if e.text().is_empty() => self.search.prompt = None,
                _ => edit_line(e, k.code, ctrl, alt),
            }
            return;
        }
        let Some(e) = self.editor.as_mut() else {
            return;
        };
        match k.code {
            Backspace if e.text().is_empty() => self.editor = None,
            // The candidates show above the command line as the word is typed.
            Tab => {
                let done = completion::complete(e.before_cursor(), &self.words).line;
                // In the middle of a word, the word up to the cursor is completed with no
                // space put before the rest of it, as readline does (`info wav|es`).
                let mid_word = e.text()[e.before_cursor().len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| !c.is_whitespace());
                let done = match done.strip_suffix(' ') {
                    Some(d) if mid_word && d.len() >= e.before_cursor().len() => d.to_string(),
                    _ => done,
                };
                e.replace_before_cursor(&done)
            }
            Up | Down => self.browse_history(k.code == Up),
            Esc => {
                self.editor = None;
                self.history.reset();
            }
            Enter => {
                let line = e.text().to_string();
                self.editor = None;
                if self.is_running() && !interrupts(&line) {
                    // It runs when the run stops (`interrupt` stops it now).
                    self.history.reset();
                    self.type_ahead(Typed::Line(line));
                } else {
                    self.run_typed(&line);
                }
            }
            code => edit_line(e, code, ctrl, alt),
        }
    }

    /// Up/Down on the command line: an older or newer history entry replaces the line.
    fn browse_history(&mut self, older: bool) {
        let Some(e) = self.editor.as_mut() else {
            return;
        };
        let entry = if older {
            self.history.older(e.text())
        } else {
            self.history.newer()
        };
        if let Some(h) = entry {
            e.set(h);
        }
    }

    /// Handles a mouse event: a click focuses the pane under it and selects the wave,
    /// lane, line or entry there; the wheel moves in the pane under the pointer.
    pub fn on_mouse(&mut self, m: MouseEvent) {
        let Some(hit) = self.hits.at(m.column, m.row) else {
            return;
        };
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => self.click(hit),
            MouseEventKind::ScrollDown => self.wheel(hit.pane, KeyCode::Down),
            MouseEventKind::ScrollUp => self.wheel(hit.pane, KeyCode::Up),
            _ => {}
        }
    }

    /// A left click on `hit`: focuses its pane (closing the help) and selects its item.
    fn click(&mut self, hit: Hit) {
        self.focus = hit.pane;
        self.help.open = false;
        let Some(item) = hit.item else { return };
        match hit.pane {
            Pane::Code => self.set_code_cursor(item),
            Pane::Source => {
                self.source.cursor = item;
                self.sync_code_to_source();
            }
            Pane::Breakpoints => self.breakpoints.cursor = item,
            Pane::Watch => self.watch.at.select(item),
            Pane::Locals => self.locals.at.select(item),
            Pane::Waves | Pane::Lanes if self.is_running() => self.refuse_busy(),
            Pane::Waves => self.select_wave_index(item),
            Pane::Lanes => self.select_lane(item as u8),
            _ => {}
        }
    }

    /// A wheel notch over `pane`: the arrow key `code` there, without moving the focus.
    /// (Not over the waves and lanes, where the arrows would select another wave or lane.)
    fn wheel(&mut self, pane: Pane, code: KeyCode) {
        if matches!(pane, Pane::Waves | Pane::Lanes) {
            return;
        }
        let focus = std::mem::replace(&mut self.focus, pane);
        // The console scrolls three rows a notch, as terminals do.
        let notches = if pane == Pane::Console { 3 } else { 1 };
        for _ in 0..notches {
            self.navigate(code);
        }
        self.focus = focus;
    }
}
