//! `matrix update` and `matrix bundle`: install a signed data bundle into the user cache, and
//! write one for signing.

use crate::data;
use crate::exit::ExitStatus;
use crate::matrix::Matrix;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `matrix update` installs, from where.
#[derive(Debug, Clone)]
pub struct Update {
    /// The bundle: an http(s) URL or a file (none: the project's data release).
    pub from: Option<String>,
    /// Also trust these minisign public keys.
    pub trusted_key: Vec<PathBuf>,
    /// Install exactly this data serial (none: the newest).
    pub serial: Option<u64>,
    /// Seconds a download may take.
    pub timeout: u64,
    /// Never touch the network.
    pub offline: bool,
}

/// A `matrix update` or `matrix bundle` error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A `--trusted-key` file is unusable.
    #[error("{0}")]
    Key(String),
    /// No user cache directory.
    #[error("no cache directory: set ROCMCHECK_CACHE_DIR, XDG_CACHE_HOME or HOME")]
    NoCache,
    /// Fetching, verifying or installing failed; nothing was changed.
    #[error("matrix update: {0}")]
    Update(data::UpdateError),
    /// A matrix file could not be read.
    #[error("{0}: {1}")]
    Read(String, crate::input::ReadError),
    /// The bundle could not be built.
    #[error("{0}")]
    Bundle(data::UpdateError),
    /// The bundle could not be written.
    #[error("writing {0}")]
    Write(String, #[source] std::io::Error),
    /// Writing the output failed.
    #[error(transparent)]
    Output(#[from] std::io::Error),
}

impl super::Failure for Error {
    fn passed_on(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        match self {
            Error::Output(e) => Ok(Box::new(e)),
            e @ Error::Write(..) => Ok(Box::new(e)),
            e => Err(e),
        }
    }
}

/// `matrix update`: downloads (or reads) a bundle and its signature, verifies it against the
/// trusted keys and installs it into the user cache; what was installed on `out`.
pub fn update(a: &Update, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let mut keys = data::TrustedKey::builtin();
    for f in &a.trusted_key {
        keys.push(data::TrustedKey::from_file(f).map_err(Error::Key)?);
    }
    let Some(dir) = data::cache_dir() else {
        return Err(Error::NoCache);
    };
    let pin = a.serial;
    let from = match (&a.from, pin) {
        (Some(f), Some(n)) => f.replace("{serial}", &n.to_string()),
        (Some(f), None) => f.clone(),
        (None, Some(n)) => data::serial_url(n),
        (None, None) => data::default_url(),
    };
    let result =
        data::fetch(&from, a.offline, std::time::Duration::from_secs(a.timeout.max(1))).and_then(|(bundle, sig)| {
            let v = data::open(&bundle, &sig, &keys, &from)?;
            if let Some(want) = pin.filter(|&n| n != v.manifest.serial) {
                return Err(data::UpdateError::WrongSerial {
                    from: from.clone(),
                    got: v.manifest.serial,
                    want,
                });
            }
            let done = data::install(&dir, &v, &bundle, &sig, &from, pin.is_some())?;
            Ok((v, done))
        });
    match result {
        Ok((v, data::Installed::AlreadyCurrent)) => {
            writeln!(
                out,
                "matrix data {} (serial {}) is already installed in {}",
                v.manifest.data,
                v.manifest.serial,
                dir.display()
            )?;
            Ok(ExitStatus::Success)
        }
        Ok((v, data::Installed::New { previous })) => {
            writeln!(
                out,
                "installed matrix data {} (schema {}, serial {}{}) from {from} into {}, verified with the {}",
                v.manifest.data,
                v.manifest.schema,
                v.manifest.serial,
                previous.map(|p| format!(", replacing serial {p}")).unwrap_or_default(),
                dir.display(),
                v.key
            )?;
            let embedded = Matrix::embedded();
            if let Some(n) = pin {
                writeln!(
                    out,
                    "note: serial {n} is pinned: commands run with --data-serial {n} or ROCMCHECK_DATA_SERIAL={n} use exactly this data"
                )?;
            } else if v.manifest.data.as_str() <= embedded.data.as_str() {
                writeln!(
                    out,
                    "note: this binary's embedded data ({}) is as new or newer, so commands keep using it",
                    embedded.data
                )?;
            }
            Ok(ExitStatus::Success)
        }
        Err(e) => Err(Error::Update(e)),
    }
}

/// `matrix bundle`: writes a data bundle (tar: manifest + matrix YAML) of the matrix in `dir`
/// (else the embedded one) to `path`, for signing.
pub fn bundle(dir: Option<&Path>, serial: u64, path: &Path, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let files = match dir {
        None => crate::matrix::embedded::files(),
        Some(d) => {
            let mut files = std::collections::BTreeMap::new();
            for name in crate::matrix::validate::FILES {
                let p = d.join(name);
                match crate::input::read_text(&p, 64 << 20) {
                    Ok(t) => {
                        files.insert((*name).to_string(), t);
                    }
                    Err(e) => return Err(Error::Read(p.display().to_string(), e)),
                }
            }
            files
        }
    };
    match data::build_bundle(&files, serial) {
        Ok(tar) => {
            std::fs::write(path, &tar).map_err(|e| Error::Write(path.display().to_string(), e))?;
            writeln!(
                out,
                "wrote {} ({} bytes, serial {}); sign it: minisign -S -s KEY -m {}",
                path.display(),
                tar.len(),
                serial,
                path.display()
            )?;
            Ok(ExitStatus::Success)
        }
        Err(e) => Err(Error::Bundle(e)),
    }
}
