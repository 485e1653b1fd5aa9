//! The matrix files compiled into the binary, so rocmcheck works with no files on disk.
//!
//! build.rs validates them when rocmcheck is built (a matrix that does not validate fails the
//! build with its diagnostics) and packs the validated [`Matrix`] ([`validate::pack`]); at run
//! time [`get`] only decodes that pack (about 1.6 M instructions, no YAML, no checks).
//! `--matrix DIR` and `matrix validate` take the full YAML path ([`load`]).

use super::{Matrix, validate};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// `(file name, text)` of every matrix file, as built.
pub const FILES: &[(&str, &str)] = &[
    ("matrix.yaml", include_str!("../../matrix/matrix.yaml")),
    ("rocm.yaml", include_str!("../../matrix/rocm.yaml")),
    ("driver.yaml", include_str!("../../matrix/driver.yaml")),
    ("torch.yaml", include_str!("../../matrix/torch.yaml")),
    ("gpus.yaml", include_str!("../../matrix/gpus.yaml")),
    ("images.yaml", include_str!("../../matrix/images.yaml")),
    ("issues.yaml", include_str!("../../matrix/issues.yaml")),
    ("distribution.yaml", include_str!("../../matrix/distribution.yaml")),
    ("signatures.yaml", include_str!("../../matrix/signatures.yaml")),
    ("keys.yaml", include_str!("../../matrix/keys.yaml")),
];

/// The embedded matrix's `data:` date, known without decoding it (build.rs).
pub fn data() -> &'static str {
    // build.rs compiles this module too, before it has set the variable.
    match option_env!("ROCMCHECK_EMBEDDED_DATA") {
        Some(d) if !d.is_empty() => d,
        _ => &get().data,
    }
}

/// The embedded files as a map.
pub fn files() -> BTreeMap<String, String> {
    FILES
        .iter()
        .map(|(n, t)| ((*n).to_string(), (*t).to_string()))
        .collect()
}

/// Validates the embedded matrix.
pub fn load() -> Result<Matrix, Vec<validate::MatrixDiagnostic>> {
    validate::load("<embedded>", &files())
}

/// Validates the embedded matrix from what build.rs packed (no YAML parsing).
pub fn load_packed() -> Result<Matrix, Vec<validate::MatrixDiagnostic>> {
    validate::load_packed("<embedded>", crate::PACKED_MATRIX)
}

/// The embedded matrix, loaded once from what build.rs validated and packed.
///
/// # Panics
/// If the packed matrix does not load: build.rs validated the same files, so this is a build bug.
pub fn get() -> &'static Matrix {
    static M: OnceLock<Matrix> = OnceLock::new();
    M.get_or_init(|| match load_packed() {
        Ok(m) => m,
        Err(d) => {
            let msgs: Vec<String> = d.iter().map(|d| d.to_string()).collect();
            panic!("the embedded matrix is invalid (a build bug):\n{}", msgs.join("\n"))
        }
    })
}
