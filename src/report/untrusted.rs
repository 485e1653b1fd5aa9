//! Text that anyone can write (issue bodies, pasted `env` dumps, GPU names, OS strings) made safe
//! to post back as a GitHub comment: secrets redacted, nothing that GitHub would turn into an
//! @mention, a cross-reference, a link, an image or HTML, and bounded in length.
//!
//! GitHub renders comments as GitHub Flavored Markdown and then links `@user`, `@org/team`,
//! `owner/repo#N`, `#N` and bare URLs in text nodes, but never inside code spans
//! (<https://docs.github.com/en/get-started/writing-on-github/getting-started-with-writing-and-formatting-on-github/basic-writing-and-formatting-syntax>,
//! <https://github.github.com/gfm/#code-spans>). So a pasted value is either put in a code
//! span (backticks inside replaced) or, in prose, every Markdown/HTML-active ASCII punctuation
//! character is backslash-escaped (<https://github.github.com/gfm/#backslash-escapes>) and each
//! word that GitHub would link is wrapped in a code span. The threat model is in SECURITY.md.

use std::borrow::Cow;
use std::sync::LazyLock;

/// The longest piece of pasted text one field of a reply carries (characters).
pub const FIELD_MAX: usize = 300;

/// Token shapes with a fixed prefix, and lines that name a credential. Sources: GitHub token
/// formats (<https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/>),
/// Hugging Face user access tokens (`hf_…`, <https://huggingface.co/docs/hub/security-tokens>),
/// AWS access key ids (`AKIA…`/`ASIA…`, <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html>),
/// OpenAI/Anthropic keys (`sk-…`), Slack (`xox?-…`), GitLab (`glpat-…`), Stripe-style keys
/// (`sk_live_…`, `rk_test_…`) and JSON Web Tokens (three base64url parts, the first `eyJ`).
const TOKENS_RE: &str = concat!(
    r"\b(?:hf_[A-Za-z0-9]{16,}",
    r"|gh[pousr]_[A-Za-z0-9]{20,}",
    r"|github_pat_[A-Za-z0-9_]{20,}",
    r"|sk-[A-Za-z0-9_\-]{16,}",
    r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}",
    r"|glpat-[A-Za-z0-9_\-]{20,}",
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    r"|npm_[A-Za-z0-9]{30,})",
);
static TOKENS: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(TOKENS_RE).expect("token regex"));

/// `NAME=value` / `NAME: value` where the name says it holds a credential: the value goes.
const NAMED_RE: &str = r#"(?i)\b([A-Z0-9_.\-]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH|SESSION|COOKIE)[A-Z0-9_.\-]*)(["']?\s*[=:]\s*)(?:"[^"]*"|'[^']*'|\S+)"#;
static NAMED: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(NAMED_RE).expect("named-secret regex"));

/// `Authorization: Bearer …`, `https://user:password@host`, PEM private keys.
const OTHER_RE: &str = r"(?i)(?:\b(?:bearer|basic|token)\s+[A-Za-z0-9_\-.=+/]{12,}|://[^/\s:@]+:[^/\s@]+@|-----BEGIN [A-Z ]*PRIVATE KEY-----)";
static OTHER: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(OTHER_RE).expect("other-secret regex"));

/// [`OTHER`], [`TOKENS`] and [`NAMED`] in one, without their `\b`: it matches wherever one of
/// them does (an assertion taken out only adds matches). Their Unicode `\b` stops `regex`'s lazy
/// DFA at the first non-ASCII byte, and the fallback (a bounded backtracker over a few thousand
/// case-folded states) cost ~100,000 instructions on an 80-character GPU header holding `—`
/// (callgrind, 200 KB ComfyUI log: 26 M of 250 M); this one has no such stop. Used on non-ASCII
/// text only: on ASCII the three run in their DFA anyway.
static ANY_LOOSE: LazyLock<regex::Regex> = LazyLock::new(|| {
    let all = format!("(?:{OTHER_RE})|(?:{TOKENS_RE})|(?:{NAMED_RE})").replace(r"\b", "");
    regex::Regex::new(&all).expect("loose secret regex")
});

/// A long run of letters and digits with no known prefix (an AWS secret access key is 40 such
/// characters): redacted when it mixes upper case, lower case and digits, as random keys do and
/// the facts rocmcheck reads (versions, gfx targets, hex hashes, words, paths) do not.
static OPAQUE: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"[A-Za-z0-9+/_\-]{32,}={0,2}").expect("opaque regex"));

fn random_looking(m: &str) -> bool {
    // `_`/`-` joined names (`PYTORCH_HIP_ALLOC_CONF`, `manylinux_2_28_x86_64`, `rocm-sdk-device-
    // gfx1100`) are made of words; a random value has a long part that mixes cases and digits
    if m.contains(['_', '-']) {
        return m.split(['_', '-']).any(|p| p.len() >= 16 && random_looking(p));
    }
    let b = m.as_bytes();
    let word = |seg: &str| seg.len() >= 3 && seg.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let segs: Vec<&str> = m.split('/').filter(|s| !s.is_empty()).collect();
    b.iter().any(u8::is_ascii_uppercase)
        && b.iter().any(u8::is_ascii_lowercase)
        && b.iter().any(u8::is_ascii_digit)
        // a path (`/home/me/miniconda3/envs/py310/lib`) is not a key; a base64 line is
        && !m.starts_with('/')
        && segs.iter().filter(|s| word(s)).count() * 2 < segs.len().max(1)
}

/// Zero-width and invisible format characters that split a token without showing (U+200B–U+200D,
/// U+2060, U+FEFF, U+00AD): taken out before the token shapes are matched.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}')
}

/// Replaces credentials in `s` with `[redacted]`.
pub fn redact(s: &str) -> Cow<'_, str> {
    let mut out = if s.contains(invisible) {
        Cow::Owned(s.chars().filter(|c| !invisible(*c)).collect())
    } else {
        Cow::Borrowed(s)
    };
    // `Authorization: Bearer x` before the named values, which would take `Bearer` as the value
    let none = !out.is_ascii() && !ANY_LOOSE.is_match(&out);
    for (re, with) in [
        (&*OTHER, "[redacted]"),
        (&*TOKENS, "[redacted]"),
        (&*NAMED, "$1$2[redacted]"),
    ] {
        if !none && re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, with).into_owned());
        }
    }
    if OPAQUE.is_match(&out) {
        let r = OPAQUE.replace_all(&out, |c: &regex::Captures| {
            if random_looking(&c[0]) {
                "[redacted]".to_string()
            } else {
                c[0].to_string()
            }
        });
        out = Cow::Owned(r.into_owned());
    }
    out
}

/// [`redact`] applied to every string of a JSON document (`triage --facts`: the pasted lines
/// and values a fact was read from).
pub fn redact_json(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) => {
            if let Cow::Owned(x) = redact(s) {
                *s = x;
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(redact_json),
        serde_json::Value::Object(o) => o.values_mut().for_each(redact_json),
        _ => {}
    }
}

/// One line, at most `max` characters (cut with `…`), redacted.
fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let red = redact(&flat);
    if red.chars().count() > max {
        let mut cut: String = red.chars().take(max).collect();
        // do not leave half a token that the cut made unrecognisable: redact again
        cut = redact(&cut).into_owned();
        cut.push('…');
        cut
    } else {
        red.into_owned()
    }
}

/// Pasted text as a Markdown code span: literal, never a link, mention, image or HTML.
pub fn code(s: &str) -> String {
    let t = one_line(s, FIELD_MAX).replace('`', "'");
    if t.trim().is_empty() {
        return String::new();
    }
    format!("`{t}`")
}

/// Whether GitHub would turn this word into a link, mention or reference.
fn linkable(w: &str) -> bool {
    let lw = w.to_ascii_lowercase();
    w.contains('@')
        || lw.contains("://")
        || lw.contains("www.")
        || lw.starts_with("mailto:")
        || w.contains('#')
        || lw.contains("javascript:")
        || lw.contains("data:")
        // a bare domain such as evil.example/x or evil.com is autolinked only with www. or a
        // scheme, but GitHub also links `GH-123` and commit SHAs: keep those literal too
        || lw.starts_with("gh-")
}

/// Markdown/HTML-active ASCII punctuation: escaped with a backslash in prose. `(`, `)` and `!`
/// need no escape once `[` and `]` have one (no link or image can open); `$` keeps GitHub's math
/// from rendering, `&` keeps entities literal.
const ACTIVE: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '~', '&', '$', '@'];

/// Pasted prose (a GPU name, an OS string): [`text_max`] with [`FIELD_MAX`].
pub fn text(s: &str) -> String {
    text_max(s, FIELD_MAX)
}

/// Prose that may carry pasted values, at most `max` characters: redacted, one line, every
/// active character escaped and every linkable word in a code span. Backtick-quoted parts (a
/// rule's own `command`) stay code spans, redacted.
pub fn text_max(s: &str, max: usize) -> String {
    let t = one_line(s, max);
    let parts: Vec<&str> = t.split('`').collect();
    let mut out = String::with_capacity(t.len() + 16);
    let paired = if parts.len().is_multiple_of(2) {
        parts.len() - 1
    } else {
        parts.len()
    };
    for (i, p) in parts.iter().enumerate() {
        if i % 2 == 1 && i < paired {
            if !p.trim().is_empty() {
                out.push('`');
                out.push_str(p);
                out.push('`');
            }
            continue;
        }
        if i >= paired {
            out.push('\'');
        }
        prose(p, &mut out);
    }
    out
}

fn prose(p: &str, out: &mut String) {
    let mut first = true;
    for w in p.split(' ') {
        if !first {
            out.push(' ');
        }
        first = false;
        if linkable(w) {
            out.push('`');
            out.push_str(w);
            out.push('`');
            continue;
        }
        let cs: Vec<char> = w.chars().collect();
        for (i, &c) in cs.iter().enumerate() {
            // `_` inside a word never emphasises in GFM (`HSA_OVERRIDE_GFX_VERSION` stays as is)
            let intraword = c == '_'
                && i > 0
                && cs[i - 1].is_alphanumeric()
                && cs.get(i + 1).is_some_and(|n| n.is_alphanumeric() || *n == '_');
            if ACTIVE.contains(&c) && !intraword {
                out.push('\\');
            }
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_known_shapes_and_named_values() {
        for (i, o) in [
            ("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUv", "HF_TOKEN=[redacted]"),
            ("x ghp_0123456789abcdefghijABCDEFGHIJ y", "x [redacted] y"),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG",
                "aws_secret_access_key = [redacted]",
            ),
            ("AKIAIOSFODNN7EXAMPLE", "[redacted]"),
            ("key wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "key [redacted]"),
            ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "[redacted]"),
            // a line of a PEM private key's base64 body
            (
                "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7/abc+Xyz9",
                "[redacted]",
            ),
            ("Authorization: Bearer abcdefghijkl012345", "Authorization: [redacted]"),
            ("https://me:pw@example.org/x", "https[redacted]example.org/x"),
            // with `_` in them, or split by an invisible character
            ("key sk_live_4eC39HqLyjWDarjtT1zdp7dc end", "key [redacted] end"),
            (
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
                "jwt [redacted]",
            ),
            ("x = Zq3_kP9xR2mW7vB4nL8tY1cH6jD5fG0s_A", "x = [redacted]"),
            ("gh\u{200B}p_0123456789abcdefghijABCDEFGHIJ", "[redacted]"),
            ("\"xoxb-1234567890-abcdefghij\"", "\"[redacted]\""),
        ] {
            assert_eq!(redact(i), o, "{i}");
        }
        // facts stay
        for keep in [
            "/home/me/miniconda3/envs/py310/lib/python3.10/site-packages",
            "dd7f95766a8dbc0c19dd7f95766a8dbc0c19abcd0123456789abcdef",
            "2.4.0+rocm6.1",
            "gfx1100",
            "HSA_OVERRIDE_GFX_VERSION=11.0.0",
            "6.2.41133-dd7f95766",
            "PYTORCH_HIP_ALLOC_CONF_expandable_segments_garbage_collection_threshold",
            "torch-2.14.1+rocm7.14-cp312-cp312-manylinux_2_28_x86_64.whl",
            "rocm-sdk-device-gfx1100-7.14.0-py3-none-linux_x86_64",
        ] {
            assert_eq!(redact(keep), keep);
        }
        // non-ASCII text (the loose pre-check, then the same shapes): redacted alike, and a word
        // character before a shape still keeps it (Unicode `\b`)
        for (i, o) in [
            ("GPU — HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUv", "GPU — HF_TOKEN=[redacted]"),
            (
                "é Authorization: Bearer abcdefghijkl012345",
                "é Authorization: [redacted]",
            ),
            ("— https://me:pw@example.org/x", "— https[redacted]example.org/x"),
            ("— éhf_AbCdEfGhIjKlMnOpQrStUv", "— éhf_AbCdEfGhIjKlMnOpQrStUv"),
            ("AMD Radeon RX 7900 XTX — gfx1100", "AMD Radeon RX 7900 XTX — gfx1100"),
        ] {
            assert_eq!(redact(i), o, "{i}");
        }
    }

    #[test]
    fn prose_is_inert() {
        let t = text("AMD <b>x</b> [l](https://e.example) @team ![i](u) *b* `ok cmd`");
        assert!(
            !t.contains("<b>") && !t.contains("![i]") && t.contains(r"!\[i\](u)"),
            "{t}"
        );
        assert!(t.contains("`@team`") && t.contains("`ok cmd`"), "{t}");
        assert_eq!(text("odd ` tick"), "odd ' tick");
    }
}
