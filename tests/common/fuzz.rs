//! Fuzz campaigns: a fixed sample in CI, a longer fresh one on request.

use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestRng, TestRunner};

/// Cases of a campaign whose CI sample is `ci`: scaled by `RFGEN_FUZZ_CASES` (the number of
/// random configs of tests/robustness.rs; the other campaigns in proportion).
pub fn cases(ci: u32) -> u32 {
    match std::env::var("RFGEN_FUZZ_CASES").ok().and_then(|v| v.parse::<u64>().ok()) {
        Some(n) => (n * u64::from(ci) / 300).clamp(1, u64::from(u32::MAX)) as u32,
        None => ci,
    }
}

/// CI's sample is the same every run; a longer campaign draws a new one each time.
pub fn runner(ci: u32) -> TestRunner {
    let config = ProptestConfig { cases: cases(ci), failure_persistence: None, ..Default::default() };
    if std::env::var_os("RFGEN_FUZZ_CASES").is_some() {
        TestRunner::new(config)
    } else {
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    }
}
