//! The CLI from the outside: every `tests/cmd/*.toml` case (and the README's examples are kept
//! true by `readme.rs`). Review changes with `TRYCMD=overwrite cargo test --test cli`.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .case("tests/cmd/*.toml");
}
