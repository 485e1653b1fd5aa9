//! PEP 508 environment markers (`sys_platform == 'linux' and extra == 'rocm'`), evaluated for
//! the image: Linux on x86-64 (the platform ROCm wheels are built for), CPython, with the
//! extras the install asks for. Variables the image does not fix here (`python_version`,
//! `python_full_version`, `platform_release`, …) compare as true: a requirement is dropped only
//! when its marker rules the image out.
//!
//! Grammar (<https://packaging.python.org/en/latest/specifications/dependency-specifiers/>):
//! `marker_or := marker_and ('or' marker_and)*`, `marker_and := marker_expr ('and'
//! marker_expr)*`, `marker_expr := VAR op VAR | '(' marker_or ')'`; `op` is one of `==`, `!=`,
//! `<`, `<=`, `>`, `>=`, `~=`, `===`, `in`, `not in`.

/// Whether `marker` holds in the image when `extras` are requested (`all` for every extra).
/// uv writes a project's extras in its lock as `extra-<n>-<project>-<extra>`: an `extra` value
/// matches a requested extra by its name or by that encoded form. A marker that does not parse
/// is taken to hold (nothing is dropped on a guess).
pub fn holds(marker: &str, extras: &[String], all: bool) -> bool {
    let toks = tokens(marker);
    let mut p = Parser {
        toks: &toks,
        at: 0,
        extras,
        all,
    };
    match p.or() {
        Some(v) if p.at == toks.len() => v,
        _ => true,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    Str(String),
    Word(String),
    Op(String),
}

fn tokens(s: &str) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'(' => {
                out.push(Tok::Open);
                i += 1;
            }
            b')' => {
                out.push(Tok::Close);
                i += 1;
            }
            b'\'' | b'"' => {
                let end = s[i + 1..].find(c as char).map_or(s.len(), |e| i + 1 + e);
                out.push(Tok::Str(s[i + 1..end].to_string()));
                i = end + 1;
            }
            b'=' | b'!' | b'<' | b'>' | b'~' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'=' | b'!' | b'<' | b'>' | b'~') {
                    i += 1;
                }
                out.push(Tok::Op(s[start..i].to_string()));
            }
            _ => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'-')) {
                    i += 1;
                }
                if i == start {
                    i += 1; // a byte of no token: skipped (the parse then fails or ignores it)
                    continue;
                }
                out.push(Tok::Word(s[start..i].to_string()));
            }
        }
    }
    out
}

struct Parser<'a> {
    toks: &'a [Tok],
    at: usize,
    extras: &'a [String],
    all: bool,
}

impl Parser<'_> {
    fn peek_word(&self, w: &str) -> bool {
        matches!(self.toks.get(self.at), Some(Tok::Word(x)) if x == w)
    }
    fn or(&mut self) -> Option<bool> {
        let mut v = self.and()?;
        while self.peek_word("or") {
            self.at += 1;
            v |= self.and()?;
        }
        Some(v)
    }
    fn and(&mut self) -> Option<bool> {
        let mut v = self.expr()?;
        while self.peek_word("and") {
            self.at += 1;
            v &= self.expr()?;
        }
        Some(v)
    }
    fn expr(&mut self) -> Option<bool> {
        if self.toks.get(self.at) == Some(&Tok::Open) {
            self.at += 1;
            let v = self.or()?;
            if self.toks.get(self.at) != Some(&Tok::Close) {
                return None;
            }
            self.at += 1;
            return Some(v);
        }
        let lhs = self.value()?;
        let op = match self.toks.get(self.at)? {
            Tok::Op(o) => o.clone(),
            Tok::Word(w) if w == "in" => "in".to_string(),
            Tok::Word(w) if w == "not" && matches!(self.toks.get(self.at + 1), Some(Tok::Word(x)) if x == "in") => {
                self.at += 1;
                "not in".to_string()
            }
            _ => return None,
        };
        self.at += 1;
        let rhs = self.value()?;
        Some(self.compare(&lhs, &op, &rhs))
    }
    /// A variable (Err: its name) or a literal (Ok).
    fn value(&mut self) -> Option<Result<String, String>> {
        let t = self.toks.get(self.at)?;
        self.at += 1;
        match t {
            Tok::Str(s) => Some(Ok(s.clone())),
            Tok::Word(w) => Some(Err(w.clone())),
            _ => None,
        }
    }
    fn compare(&self, lhs: &Result<String, String>, op: &str, rhs: &Result<String, String>) -> bool {
        let (var, lit, var_left) = match (lhs, rhs) {
            (Err(v), Ok(l)) => (v.as_str(), l.as_str(), true),
            (Ok(l), Err(v)) => (v.as_str(), l.as_str(), false),
            _ => return true,
        };
        if var == "extra" {
            let hit = self.all || self.extras.iter().any(|e| lit == e || lit.ends_with(&format!("-{e}")));
            return match op {
                "==" | "===" => hit,
                "!=" => !hit,
                _ => true,
            };
        }
        let known = match var {
            "sys_platform" => "linux",
            "platform_system" => "Linux",
            "platform_machine" => "x86_64",
            "os_name" => "posix",
            "implementation_name" => "cpython",
            "platform_python_implementation" => "CPython",
            _ => return true,
        };
        match op {
            "==" | "===" => known == lit,
            "!=" => known != lit,
            // `'linux' in sys_platform`, `sys_platform in 'linux darwin'`
            "in" if var_left => lit.contains(known),
            "in" => known.contains(lit),
            "not in" if var_left => !lit.contains(known),
            "not in" => !known.contains(lit),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_is_linux_x86_64() {
        assert!(holds("sys_platform == 'linux'", &[], false));
        assert!(!holds("sys_platform == \"darwin\"", &[], false));
        assert!(!holds(
            "platform_system == 'Windows' and python_version >= '3.10'",
            &[],
            false
        ));
        assert!(holds("sys_platform == 'darwin' or sys_platform == 'linux'", &[], false));
        assert!(!holds(
            "sys_platform == 'linux' and platform_machine == 'aarch64'",
            &[],
            false
        ));
        assert!(holds(
            "sys_platform != 'linux' or platform_machine != 'aarch64'",
            &[],
            false
        ));
        assert!(holds("python_full_version < '3.12'", &[], false));
        assert!(holds("'linux' in sys_platform", &[], false));
        assert!(holds("not a marker ((", &[], false));
    }

    #[test]
    fn extras_as_uv_writes_them_in_a_lock() {
        // the markers of InvokeAI's uv.lock (invoke-ai/InvokeAI): the pypi torch of the rocm
        // extra is for aarch64 only, the +rocm7.1 one for x86-64
        let pypi = "(platform_machine == 'aarch64' and sys_platform == 'linux' and extra == 'extra-8-invokeai-rocm') or (platform_machine != 'aarch64' and extra == 'extra-8-invokeai-rocm' and extra == 'extra-8-invokeai-xpu') or (extra == 'extra-8-invokeai-cpu' and extra == 'extra-8-invokeai-rocm')";
        let rocm = "(platform_machine == 'x86_64' and sys_platform == 'linux' and extra == 'extra-8-invokeai-rocm') or (sys_platform != 'linux' and extra == 'extra-8-invokeai-rocm' and extra == 'extra-8-invokeai-xpu')";
        let r = ["rocm".to_string()];
        assert!(!holds(pypi, &r, false));
        assert!(holds(rocm, &r, false));
        assert!(!holds(rocm, &["cuda".to_string()], false));
        assert!(holds("extra == 'rocm'", &r, false));
        assert!(!holds("extra != 'rocm'", &r, false));
    }
}
