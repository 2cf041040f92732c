//! The fallback when AFL++ cannot be built: `random TARGET SECONDS [SEED]` runs generated cases (and
//! byte-level mutations of the corpus) through the target until the time is up. A panic aborts with the
//! case saved as `crash-<target>-<n>` in the current directory.

use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(name), Some(secs)) = (args.get(1), args.get(2).and_then(|s| s.parse::<u64>().ok())) else {
        eprintln!("usage: random TARGET SECONDS [SEED] [CORPUS_DIR]");
        std::process::exit(2);
    };
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let Some((target, generate)) = edgecheck_fuzz::target(name) else {
        eprintln!("unknown target `{name}`");
        std::process::exit(2);
    };
    let corpus: Vec<Vec<u8>> = args
        .get(4)
        .and_then(|d| std::fs::read_dir(d).ok())
        .into_iter()
        .flatten()
        .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
        .collect();
    let end = Instant::now() + Duration::from_secs(secs);
    let mut n = 0u64;
    while Instant::now() < end {
        let case = match corpus.len() {
            // every other case is a corpus entry with a few bytes overwritten
            len if len > 0 && n % 2 == 1 => mutate(&corpus[(n as usize / 2) % len], seed ^ n),
            _ => edgecheck_fuzz::generated_case(generate, seed, n).unwrap_or_default(),
        };
        let path = format!("crash-{name}-{n}");
        // written before the run, removed after it: what is left is what crashed or hung
        if std::fs::write(&path, &case).is_err() {
            eprintln!("cannot write {path}");
            std::process::exit(2);
        }
        target(&case);
        let _ = std::fs::remove_file(&path);
        n += 1;
    }
    println!("{name}: {n} cases in {secs} s, no crash");
}

fn mutate(base: &[u8], seed: u64) -> Vec<u8> {
    let mut out = base.to_vec();
    let noise = edgecheck_fuzz::seeded_bytes(seed, 16);
    for pair in noise.chunks(2) {
        if out.is_empty() {
            break;
        }
        let at = usize::from(pair[0]) * out.len() / 256;
        out[at] = pair[1];
    }
    out
}
