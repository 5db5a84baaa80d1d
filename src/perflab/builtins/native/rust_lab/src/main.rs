//! The Rust case study of perflab (builtins/native_rust.py): the two choices a packet-processing
//! service's flame graphs pointed at, as a command-line program perflab times, compares and profiles.
//!
//!   rust_lab find-memchr NEEDLE FILE   count non-overlapping NEEDLE in FILE with memchr::memmem
//!   rust_lab find-naive NEEDLE FILE    the same count with a byte-by-byte loop
//!   rust_lab uuid-os N                 N random (v4) UUIDs, 16 bytes of OS randomness each
//!   rust_lab uuid-thread N             N random UUIDs from a generator seeded once from the OS
//!
//! Output is what must agree across variants: the count, or a summary of the UUIDs (how many,
//! all distinct, all version 4 with the RFC 4122 variant). The timed inner phase (the search or
//! the generation, without reading the file) goes to stderr as "phase: N ns".
use std::collections::HashSet;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: rust_lab find-memchr|find-naive NEEDLE FILE | uuid-os|uuid-thread N");
        std::process::exit(2);
    }
    match args[1].as_str() {
        "find-memchr" | "find-naive" if args.len() == 4 => {
            let hay = std::fs::read(&args[3]).unwrap_or_else(|e| fail(&format!("{}: {}", args[3], e)));
            let needle = args[2].as_bytes();
            let start = Instant::now();
            let count = if args[1] == "find-memchr" { count_memchr(&hay, needle) } else { count_naive(&hay, needle) };
            let took = start.elapsed();
            println!("{}", count);
            eprintln!("phase: {} ns", took.as_nanos());
        }
        "uuid-os" | "uuid-thread" => {
            let n: usize = args[2].parse().unwrap_or_else(|_| fail("N must be a whole number"));
            let start = Instant::now();
            let ids = if args[1] == "uuid-os" { uuids_os(n) } else { uuids_thread(n) };
            let took = start.elapsed();
            println!("{}", summary(&ids));
            eprintln!("phase: {} ns", took.as_nanos());
        }
        _ => fail("unknown command or wrong number of arguments"),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("rust_lab: {}", message);
    std::process::exit(2)
}

#[inline(never)]
fn count_memchr(hay: &[u8], needle: &[u8]) -> usize {
    memchr::memmem::find_iter(hay, needle).count()
}

#[inline(never)]
fn count_naive(hay: &[u8], needle: &[u8]) -> usize {
    if needle.is_empty() {
        return hay.len() + 1; // as memmem: an empty needle matches at every position
    }
    let (mut count, mut i) = (0, 0);
    while i + needle.len() <= hay.len() {
        if &hay[i..i + needle.len()] == needle {
            count += 1;
            i += needle.len();
        } else {
            i += 1;
        }
    }
    count
}

fn as_uuid(mut bytes: [u8; 16]) -> u128 {
    bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
    bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
    u128::from_be_bytes(bytes)
}

#[inline(never)]
fn uuids_os(n: usize) -> Vec<u128> {
    (0..n)
        .map(|_| {
            let mut bytes = [0u8; 16];
            getrandom::getrandom(&mut bytes).expect("the OS random source failed");
            as_uuid(bytes)
        })
        .collect()
}

/// xoshiro256** (Blackman and Vigna), seeded once from the OS: fast and statistically sound,
/// not for secrets (its state can be recovered from its output).
struct Xoshiro256 {
    s: [u64; 4],
}

impl Xoshiro256 {
    fn from_os() -> Self {
        let mut seed = [0u8; 32];
        getrandom::getrandom(&mut seed).expect("the OS random source failed");
        let mut s = [0u64; 4];
        for (i, chunk) in seed.chunks(8).enumerate() {
            s[i] = u64::from_le_bytes(chunk.try_into().unwrap()) | 1;
        }
        Xoshiro256 { s }
    }

    fn next(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }
}

thread_local! {
    static RNG: std::cell::RefCell<Xoshiro256> = std::cell::RefCell::new(Xoshiro256::from_os());
}

#[inline(never)]
fn uuids_thread(n: usize) -> Vec<u128> {
    RNG.with(|rng| {
        let mut rng = rng.borrow_mut();
        (0..n)
            .map(|_| {
                let mut bytes = [0u8; 16];
                bytes[..8].copy_from_slice(&rng.next().to_le_bytes());
                bytes[8..].copy_from_slice(&rng.next().to_le_bytes());
                as_uuid(bytes)
            })
            .collect()
    })
}

fn summary(ids: &[u128]) -> String {
    let distinct = ids.iter().collect::<HashSet<_>>().len();
    let valid = ids.iter().filter(|&&id| (id >> 76) & 0xf == 4 && (id >> 62) & 0x3 == 2).count();
    format!("{} ids, {} distinct, {} version 4 RFC 4122", ids.len(), distinct, valid)
}
