//! The AFL++ driver: `afl TARGET` runs the target named on the command line in AFL's persistent loop.
//! Built by `cargo afl build --features afl` (scripts/fuzz.sh).

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some((target, _)) = edgecheck_fuzz::target(&name) else {
        let names: Vec<_> = edgecheck_fuzz::TARGETS.iter().map(|(n, _, _)| *n).collect();
        eprintln!("usage: afl TARGET (one of {})", names.join(", "));
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| target(data));
}
