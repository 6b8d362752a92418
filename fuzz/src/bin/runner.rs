//! The fuzz targets on stable Rust, without libFuzzer: each target is fed every file of its
//! seed corpus (`fuzz/target/seeds/TARGET/`, built by `fuzz/seed.sh`) and, for each, a fixed number of deterministic
//! mutations of it (bit flips, protocol bytes, insertions, deletions, duplications,
//! splices with another seed), the same every run. A panic anywhere (even one the code
//! under test catches, as the GDB server does per packet) or an input slower than
//! `SLOW` is a finding: the input is written to `fuzz/artifacts/TARGET/` and the runner
//! exits 1. `.ci/run` runs it when no nightly toolchain is there.
//!
//! Usage: `runner [--mutations N] [TARGET...]` (every target by default).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use wavedbg_fuzz::TARGETS;

/// Mutations of each seed file, by default.
const MUTATIONS: usize = 2000;
/// An input that takes longer than this is a finding (a hang, or work out of proportion).
const SLOW: Duration = Duration::from_secs(10);
/// Bytes a mutation likes to insert: what delimits tokens, packets and lines.
const INTERESTING: &[u8] = b"$#:;,.()[]{}\"'\\/*+-=<>!&|^%~0123456789abcdefxX \t\n\r\x00\x03\xff";

static PANICS: AtomicUsize = AtomicUsize::new(0);
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// xorshift64*: a small deterministic generator (the same mutations every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One to four mutations of `seed`; `other` is another seed to splice with.
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(8) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            2 => v.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            3 => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                v.drain(at.min(end)..end);
            }
            4 => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                let chunk = v[at.min(end)..end].to_vec();
                let times = 1 + rng.below(16);
                for _ in 0..times {
                    v.splice(at..at, chunk.iter().copied());
                }
            }
            5 => {
                let from = rng.below(other.len() + 1);
                v.truncate(at);
                v.extend_from_slice(&other[from..]);
            }
            6 => v.truncate(at),
            _ => v.insert(at, rng.next() as u8),
        }
    }
    v
}

fn seeds(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

/// Runs `body` on `input`; the panic or slowness it showed, if any.
fn check(body: fn(&[u8]), input: &[u8]) -> Option<String> {
    let before = PANICS.load(Ordering::SeqCst);
    let start = Instant::now();
    let caught = catch_unwind(AssertUnwindSafe(|| body(input)));
    let took = start.elapsed();
    if caught.is_err() || PANICS.load(Ordering::SeqCst) != before {
        let why = LAST_PANIC.lock().map(|s| s.clone()).unwrap_or_default();
        return Some(format!("panic: {why}"));
    }
    (took > SLOW).then(|| format!("slow: {took:?}"))
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut mutations = MUTATIONS;
    if let Some(i) = args.iter().position(|a| a == "--mutations") {
        let n = args.get(i + 1).and_then(|n| n.parse().ok());
        let Some(n) = n else {
            eprintln!("usage: runner [--mutations N] [TARGET...]");
            std::process::exit(2);
        };
        mutations = n;
        args.drain(i..i + 2);
    }
    // Record every panic, including those the code under test catches; print none (the
    // report below says which input).
    std::panic::set_hook(Box::new(|info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.to_string();
        }
    }));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut findings = 0;
    for (name, body) in TARGETS {
        if !args.is_empty() && !args.iter().any(|a| a == name) {
            continue;
        }
        let corpus = seeds(&root.join("target/seeds").join(name));
        if corpus.is_empty() {
            println!("{name}: no seeds in fuzz/target/seeds/{name} (run fuzz/seed.sh)");
            findings += 1;
            continue;
        }
        let start = Instant::now();
        let mut inputs = 0;
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (i, (path, seed)) in corpus.iter().enumerate() {
            let other = &corpus[(i + 1) % corpus.len()].1;
            let mutated = (0..mutations).map(|_| mutate(&mut rng, seed, other));
            for (k, input) in std::iter::once(seed.clone()).chain(mutated).enumerate() {
                inputs += 1;
                if let Some(why) = check(body, &input) {
                    findings += 1;
                    let dir = root.join("artifacts").join(name);
                    let file = dir.join(format!("finding-{i}-{k}"));
                    let saved = std::fs::create_dir_all(&dir)
                        .and_then(|()| std::fs::write(&file, &input))
                        .map_or_else(
                            |e| format!("(not saved: {e})"),
                            |()| file.display().to_string(),
                        );
                    println!(
                        "{name}: {why}\n  from {} (mutation {k}), input {saved}",
                        path.display()
                    );
                }
            }
        }
        println!(
            "{name}: {inputs} inputs from {} seeds in {:.1} s",
            corpus.len(),
            start.elapsed().as_secs_f64()
        );
    }
    if findings > 0 {
        println!("{findings} finding(s)");
        std::process::exit(1);
    }
}
