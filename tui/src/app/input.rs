//! Input: keys, mouse clicks and the wheel, pasted text, and the command line's editing
//! keys. Each becomes a movement in the state or an action (see `commands`).

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use wavedbg_emulator::debug::command::Command;

use super::state::{space_index, App, CodeLayout, Pane, SPACES};
use crate::completion;
use crate::editor::LineEditor;

impl App {
    // ----- input -----

    /// Handles a pasted string (into the command line, if open).
    pub fn on_paste(&mut self, text: &str) {
        if let Some(e) = self.editor.as_mut() {
            e.insert(text.lines().next().unwrap_or_default());
        }
    }

    /// Handles a key.
    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        // Terminals send Alt-x as Esc then x, so an Esc and a key that arrive together
        // read as Alt-key. The panes bind no Alt keys: take it as the two keys it was.
        // (The command line has readline's Alt-b/Alt-f; a y/n prompt takes the key.)
        let prompt = self.confirm_quit || self.confirm_restart;
        if k.modifiers.contains(KeyModifiers::ALT)
            && matches!(k.code, KeyCode::Char(_))
            && self.editor.is_none()
            && !prompt
        {
            self.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            self.on_key(KeyEvent::new(k.code, k.modifiers - KeyModifiers::ALT));
            return;
        }
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        if self.confirm_quit {
            if matches!(k.code, KeyCode::Char('y' | 'Y')) {
                self.interrupt();
                self.quit = true;
            } else {
                self.confirm_quit = false;
                self.say("Not quitting.");
            }
            return;
        }
        if self.confirm_restart {
            self.confirm_restart = false;
            if !matches!(k.code, KeyCode::Char('y' | 'Y')) {
                self.say("Not restarting.");
            } else if self.is_running() {
                self.complain("A run is in progress (Esc interrupts it).");
            } else {
                self.restart();
            }
            return;
        }
        if ctrl && matches!(k.code, KeyCode::Char('c')) {
            if self.is_running() {
                self.interrupt();
            } else if self.editor.take().is_some() {
                self.history.reset();
            } else {
                self.say("Ctrl-C and Esc interrupt a run; q quits.");
            }
            return;
        }
        if self.editor.is_some() {
            self.edit_key(k);
            return;
        }
        if self.help {
            match k.code {
                KeyCode::Down | KeyCode::Char('j') => self.help_scroll += 1,
                KeyCode::Up | KeyCode::Char('k') => {
                    self.help_scroll = self.help_scroll.saturating_sub(1)
                }
                KeyCode::PageDown => self.help_scroll += 10,
                KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
                _ => self.help = false,
            }
            return;
        }
        if ctrl && matches!(k.code, KeyCode::Char('r')) {
            if self.is_running() {
                self.complain("A run is in progress (Esc interrupts it).");
            } else {
                self.confirm_restart = true;
            }
            return;
        }
        if ctrl {
            return;
        }
        match k.code {
            KeyCode::Esc => {
                if self.is_running() {
                    self.interrupt();
                } else {
                    self.message = None;
                    if self.zoom {
                        self.unzoom();
                    }
                }
                return;
            }
            KeyCode::Char('z') => {
                if self.zoom {
                    self.unzoom();
                } else {
                    self.zoom = true;
                    self.zoom_return = None;
                }
                return;
            }
            KeyCode::Char('o') => {
                if self.zoom && self.focus == Pane::Console {
                    self.unzoom();
                } else {
                    if self.focus != Pane::Console {
                        self.zoom_return = Some(self.focus);
                    }
                    self.focus = Pane::Console;
                    self.zoom = true;
                }
                return;
            }
            KeyCode::Char('v') => {
                self.layout = self.layout.next();
                if !self.layout.shows(self.focus) {
                    self.focus = if self.focus == Pane::Code {
                        Pane::Source
                    } else {
                        Pane::Code
                    };
                }
                self.say(match self.layout {
                    CodeLayout::Asm => "Layout asm: the disassembly (v: source too)",
                    CodeLayout::Split => {
                        "Layout split: the source above the disassembly (v: source alone)"
                    }
                    CodeLayout::Src => "Layout src: the source (v: disassembly alone)",
                });
                return;
            }
            KeyCode::Char('?') | KeyCode::F(1) => {
                self.help = true;
                self.help_scroll = 0;
                return;
            }
            KeyCode::Char('q') => return self.request_quit(),
            KeyCode::Char(':') => {
                self.editor = Some(LineEditor::new());
                self.history.reset();
                return;
            }
            KeyCode::Tab => {
                self.focus = self.focus.step(1, &self.shown_panes());
                return;
            }
            KeyCode::BackTab => {
                self.focus = self.focus.step(-1, &self.shown_panes());
                return;
            }
            KeyCode::Char(d @ '1'..='8') => {
                self.focus_pane(Pane::ALL[(d as u8 - b'1') as usize]);
                return;
            }
            _ => {}
        }
        if self.navigate(k) {
            return;
        }
        let engine_key = matches!(
            k.code,
            KeyCode::F(5 | 9 | 11)
                | KeyCode::Char('c' | 's' | 'S' | 'r' | 'R' | 'b' | 'a' | 'w' | 'W' | 'l' | 'L')
        );
        if !engine_key {
            return;
        }
        if self.is_running() {
            self.complain("A run is in progress (Esc interrupts it).");
            return;
        }
        match k.code {
            KeyCode::F(5) | KeyCode::Char('c') => self.continue_run(),
            KeyCode::F(11) | KeyCode::Char('s') => self.step(),
            KeyCode::Char('S') => self.step_all(),
            KeyCode::Char('r') => self.reverse_step(),
            KeyCode::Char('R') => self.reverse_continue(),
            KeyCode::F(9) | KeyCode::Char('b') => self.toggle_breakpoint(),
            KeyCode::Char('a') => self.advance_to_cursor(),
            KeyCode::Char('w') => self.select_wave_by(1),
            KeyCode::Char('W') => self.select_wave_by(-1),
            KeyCode::Char('l') => self.select_lane_by(1),
            KeyCode::Char('L') => self.select_lane_by(-1),
            _ => {}
        }
    }

    /// Pane-specific movement. Returns whether the key was used.
    pub(super) fn navigate(&mut self, k: KeyEvent) -> bool {
        use KeyCode::*;
        let busy = self.is_running();
        let down = matches!(k.code, Down | Char('j'));
        let up = matches!(k.code, Up | Char('k'));
        match self.focus {
            Pane::Code => {
                let page = self.page(Pane::Code);
                let last = self.code.len().saturating_sub(1);
                let c = &mut self.code_cursor;
                match k.code {
                    _ if down => *c = (*c + 1).min(last),
                    _ if up => *c = c.saturating_sub(1),
                    PageDown => *c = (*c + page).min(last),
                    PageUp => *c = c.saturating_sub(page),
                    Home | Char('g') => *c = 0,
                    End | Char('G') => *c = last,
                    Char('.') => self.follow_pc(),
                    _ => return false,
                }
                self.sync_source_to_code();
            }
            Pane::Source => {
                let page = self.page(Pane::Source) as isize;
                let n = self.source.as_ref().map_or(0, |s| s.lines.len()) as isize;
                match k.code {
                    _ if down => self.move_source(1),
                    _ if up => self.move_source(-1),
                    PageDown => self.move_source(page),
                    PageUp => self.move_source(-page),
                    Home | Char('g') => self.move_source(-n),
                    End | Char('G') => self.move_source(n),
                    Char('.') => self.follow_pc(),
                    _ => return false,
                }
            }
            Pane::Waves => {
                let n = self.engine.machine().waves.len();
                let target = match k.code {
                    _ if down => Some(1),
                    _ if up => Some(-1),
                    Home | Char('g') => Some(-(self.engine.selected_wave as isize)),
                    End | Char('G') => Some(n as isize - 1 - self.engine.selected_wave as isize),
                    _ => None,
                };
                let Some(delta) = target else { return false };
                if busy {
                    self.complain("A run is in progress (Esc interrupts it).");
                } else if down || up {
                    self.select_wave_by(delta);
                } else {
                    self.select_wave_index((self.engine.selected_wave as isize + delta) as usize);
                }
            }
            Pane::Lanes => {
                let shown = self.hits.lane_regs.max(1);
                let n = self.lane_regs.len();
                let start = self.regs_start(shown);
                let last = n.saturating_sub(shown);
                match k.code {
                    _ if down || up => {
                        if busy {
                            self.complain("A run is in progress (Esc interrupts it).");
                        } else {
                            self.select_lane_by(if down { 1 } else { -1 });
                        }
                    }
                    // From the first register shown (the grid keeps its columns filled).
                    Left | Char('h') => self.lane_offset = start.saturating_sub(1),
                    Right => self.lane_offset = (start + 1).min(last),
                    PageUp => self.lane_offset = start.saturating_sub(shown),
                    PageDown => self.lane_offset = (start + shown).min(last),
                    Home | Char('g') => self.lane_offset = 0,
                    _ => return false,
                }
            }
            Pane::Registers => match k.code {
                _ if down => self.regs_scroll += 1,
                _ if up => self.regs_scroll = self.regs_scroll.saturating_sub(1),
                Home | Char('g') => self.regs_scroll = 0,
                _ => return false,
            },
            Pane::Memory => {
                let bpr = self.hits.mem_bytes_per_row.max(4) as i64;
                let page = self.page(Pane::Memory) as i64 * bpr;
                match k.code {
                    _ if down => self.move_mem(bpr),
                    _ if up => self.move_mem(-bpr),
                    Left | Char('h') => self.move_mem(-4),
                    Right => self.move_mem(4),
                    PageDown => self.move_mem(page),
                    PageUp => self.move_mem(-page),
                    Home | Char('g') => self.move_mem(i64::MIN / 2),
                    End | Char('G') => self.move_mem(i64::MAX / 2),
                    Char('m') => {
                        self.mem_space = SPACES[(space_index(self.mem_space) + 1) % 3];
                        self.clamp_mem();
                    }
                    Char('M') => {
                        self.mem_space = SPACES[(space_index(self.mem_space) + 2) % 3];
                        self.clamp_mem();
                    }
                    Char('n') => self.jump_buffer(true),
                    Char('p') => self.jump_buffer(false),
                    Char('t') if !busy => self.toggle_watchpoint(),
                    _ => return false,
                }
            }
            Pane::Breakpoints => {
                let bps = self.engine.breakpoints();
                let wps = self.engine.watchpoints();
                let n = bps.len() + wps.len();
                let item = if self.bp_cursor < bps.len() {
                    bps.get(self.bp_cursor)
                        .map(|b| (b.id, b.enabled, Some(b.addr)))
                } else {
                    wps.get(self.bp_cursor - bps.len())
                        .map(|w| (w.id, w.enabled, None))
                };
                match k.code {
                    _ if down => self.bp_cursor = (self.bp_cursor + 1).min(n.saturating_sub(1)),
                    _ if up => self.bp_cursor = self.bp_cursor.saturating_sub(1),
                    Char('d') | Delete if !busy => {
                        if let Some((id, ..)) = item {
                            self.submit_commands(vec![Command::Delete(Some(id))]);
                        }
                    }
                    Char('e') | Char(' ') if !busy => {
                        if let Some((id, enabled, _)) = item {
                            self.submit_commands(vec![Command::Enable(id, !enabled)]);
                        }
                    }
                    Enter => {
                        if let Some(i) = item.and_then(|(.., a)| a).and_then(|a| self.code_index(a))
                        {
                            // The breakpoint's place, in the code view the layout shows.
                            self.set_code_cursor(i);
                            self.focus = if self.layout.shows(Pane::Code) {
                                Pane::Code
                            } else {
                                Pane::Source
                            };
                        }
                    }
                    _ => return false,
                }
            }
            Pane::Console => {
                let page = self.page(Pane::Console);
                let max = self.hits.console_rows.saturating_sub(page);
                let s = &mut self.console_scroll;
                match k.code {
                    _ if up => *s = (*s + 1).min(max),
                    _ if down => *s = s.saturating_sub(1),
                    PageUp => *s = (*s + page).min(max),
                    PageDown => *s = s.saturating_sub(page),
                    Home | Char('g') => *s = max,
                    End | Char('G') => *s = 0,
                    _ => return false,
                }
            }
        }
        true
    }

    /// Ends a maximised view (back to the pane focused before `o`, if any).
    pub(super) fn unzoom(&mut self) {
        self.zoom = false;
        if let Some(p) = self.zoom_return.take() {
            if self.layout.shows(p) {
                self.focus = p;
            }
        }
    }

    pub(super) fn edit_key(&mut self, k: KeyEvent) {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        let Some(e) = self.editor.as_mut() else {
            return;
        };
        match k.code {
            KeyCode::Char('b') if alt => e.word_left(),
            KeyCode::Char('f') if alt => e.word_right(),
            // Other Alt keys mean nothing on the command line.
            KeyCode::Char(_) if alt => {}
            KeyCode::Esc => {
                self.editor = None;
                self.history.reset();
            }
            KeyCode::Enter => {
                let line = e.text().to_string();
                self.editor = None;
                self.run_typed(&line);
            }
            KeyCode::Backspace => {
                if e.text().is_empty() {
                    self.editor = None;
                } else {
                    e.backspace();
                }
            }
            KeyCode::Delete => e.delete(),
            KeyCode::Left => e.move_by(-1),
            KeyCode::Right => e.move_by(1),
            KeyCode::Home => e.home(),
            KeyCode::End => e.end(),
            KeyCode::Char('a') if ctrl => e.home(),
            KeyCode::Char('e') if ctrl => e.end(),
            KeyCode::Char('w') if ctrl => e.delete_word(),
            KeyCode::Char('u') if ctrl => e.set(""),
            KeyCode::Up => {
                let cur = e.text().to_string();
                if let Some(h) = self.history.older(&cur) {
                    let h = h.to_string();
                    e.set(&h);
                }
            }
            KeyCode::Down => {
                if let Some(h) = self.history.newer() {
                    let h = h.to_string();
                    e.set(&h);
                }
            }
            KeyCode::Tab => {
                // The candidates show above the command line as the word is typed.
                let c = completion::complete(e.before_cursor(), &self.words);
                e.replace_before_cursor(&c.line);
            }
            KeyCode::Char(c) if !ctrl => e.insert(&c.to_string()),
            _ => {}
        }
    }

    /// Handles a mouse event: a click focuses the pane under it and selects the wave,
    /// lane, line or entry there; the wheel moves in the pane under the pointer.
    pub fn on_mouse(&mut self, m: MouseEvent) {
        let Some(hit) = self.hits.at(m.column, m.row) else {
            return;
        };
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = hit.pane;
                if self.help {
                    self.help = false;
                }
                let Some(item) = hit.item else { return };
                match hit.pane {
                    Pane::Code => self.set_code_cursor(item),
                    Pane::Source => {
                        self.source_cursor = item;
                        self.sync_code_to_source();
                    }
                    Pane::Breakpoints => self.bp_cursor = item,
                    Pane::Waves | Pane::Lanes if self.is_running() => {
                        self.complain("A run is in progress (Esc interrupts it).")
                    }
                    Pane::Waves => self.select_wave_index(item),
                    Pane::Lanes => self.select_lane(item as u8),
                    _ => {}
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let code = if m.kind == MouseEventKind::ScrollDown {
                    KeyCode::Down
                } else {
                    KeyCode::Up
                };
                let focus = self.focus;
                self.focus = hit.pane;
                // The console scrolls three rows a notch, as terminals do.
                let notches = if hit.pane == Pane::Console { 3 } else { 1 };
                if !matches!(hit.pane, Pane::Waves | Pane::Lanes) {
                    for _ in 0..notches {
                        self.navigate(KeyEvent::new(code, KeyModifiers::NONE));
                    }
                }
                self.focus = focus;
            }
            _ => {}
        }
    }
}
