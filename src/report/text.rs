//! Compact strings for night results, which hold hundreds of thousands of candidates: [`Sym`],
//! an interned string of 4 bytes for the fields whose values repeat from candidate to candidate
//! (classification, gfx, runner, GPU, driver, step names and statuses), and [`Text`], an owned
//! string of 16 bytes with no spare capacity for those that do not (ids, images, details).
//!
//! Interned strings live as long as the process (a command reads a few nights and exits); the
//! table holds each distinct value once, so its size is bounded by the distinct values read,
//! never by the number of candidates.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::{OnceLock, RwLock};

/// An interned string: a 4-byte handle (and `Option<Sym>` is 4 bytes too).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sym(NonZeroU32);

#[derive(Default)]
struct Table {
    ids: HashMap<&'static str, NonZeroU32>,
    strs: Vec<&'static str>,
}

fn table() -> &'static RwLock<Table> {
    static TABLE: OnceLock<RwLock<Table>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

impl Sym {
    /// The handle of `s`, interning it on first use.
    pub fn new(s: &str) -> Sym {
        let t = table();
        if let Some(&id) = t.read().unwrap_or_else(std::sync::PoisonError::into_inner).ids.get(s) {
            return Sym(id);
        }
        let mut w = t.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&id) = w.ids.get(s) {
            return Sym(id);
        }
        let stored: &'static str = Box::leak(s.to_owned().into_boxed_str());
        w.strs.push(stored);
        let id = u32::try_from(w.strs.len())
            .ok()
            .and_then(NonZeroU32::new)
            .expect("fewer than 2^32 distinct interned strings");
        w.ids.insert(stored, id);
        Sym(id)
    }

    /// The string.
    pub fn as_str(&self) -> &'static str {
        table().read().unwrap_or_else(std::sync::PoisonError::into_inner).strs[self.0.get() as usize - 1]
    }
}

/// A shared string without spare capacity (16 bytes, `Option<Text>` too): a clone shares the
/// text (the gate's verdict names a job by its result's id without a copy).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Text(std::sync::Arc<str>);

impl Text {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! string_like {
    ($t:ty) => {
        impl std::ops::Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                self.as_str()
            }
        }
        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.as_str(), f)
            }
        }
        impl PartialEq<str> for $t {
            fn eq(&self, o: &str) -> bool {
                self.as_str() == o
            }
        }
        impl PartialEq<&str> for $t {
            fn eq(&self, o: &&str) -> bool {
                self.as_str() == *o
            }
        }
        impl PartialEq<String> for $t {
            fn eq(&self, o: &String) -> bool {
                self.as_str() == o.as_str()
            }
        }
        impl PartialEq<$t> for str {
            fn eq(&self, o: &$t) -> bool {
                self == o.as_str()
            }
        }
        impl PartialEq<$t> for &str {
            fn eq(&self, o: &$t) -> bool {
                *self == o.as_str()
            }
        }
        impl PartialEq<$t> for String {
            fn eq(&self, o: &$t) -> bool {
                self.as_str() == o.as_str()
            }
        }
        impl From<&str> for $t {
            fn from(s: &str) -> Self {
                <$t>::new_from(s)
            }
        }
        impl From<String> for $t {
            fn from(s: String) -> Self {
                <$t>::new_owned(s)
            }
        }
        impl From<&String> for $t {
            fn from(s: &String) -> Self {
                <$t>::new_from(s)
            }
        }
        impl From<$t> for String {
            fn from(s: $t) -> String {
                s.as_str().to_owned()
            }
        }
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d).map(<$t>::new_owned)
            }
        }
    };
}

impl Sym {
    fn new_from(s: &str) -> Sym {
        Sym::new(s)
    }
    fn new_owned(s: String) -> Sym {
        Sym::new(&s)
    }
}

impl Text {
    fn new_from(s: &str) -> Text {
        Text(s.into())
    }
    fn new_owned(s: String) -> Text {
        Text(s.into())
    }
}

string_like!(Sym);
string_like!(Text);

impl Default for Sym {
    fn default() -> Sym {
        Sym::new("")
    }
}

impl PartialOrd for Sym {
    fn partial_cmp(&self, o: &Sym) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Sym {
    /// By the strings (not by the order they were interned in).
    fn cmp(&self, o: &Sym) -> std::cmp::Ordering {
        if self.0 == o.0 {
            std::cmp::Ordering::Equal
        } else {
            self.as_str().cmp(o.as_str())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_strings_are_shared_and_compare_as_strings() {
        let a = Sym::new("hipblas-failed");
        let b = Sym::from(String::from("hipblas-failed"));
        assert_eq!(a, b);
        assert_eq!(a.0, b.0);
        assert_eq!(a, "hipblas-failed");
        assert!(Sym::new("a-zzz") < Sym::new("b-aaa"));
        assert!(Sym::new("b-first-interned") > Sym::new("a-interned-later"));
        assert_eq!(std::mem::size_of::<Option<Sym>>(), 4);
        assert_eq!(std::mem::size_of::<Option<Text>>(), 16);
        assert_eq!(Sym::default().as_str(), "");
    }

    #[test]
    fn both_serialize_as_json_strings() {
        let t = Text::from("torch2.7.1-rocm6.3");
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"torch2.7.1-rocm6.3\"");
        let s: Sym = serde_json::from_str("\"gfx942\"").unwrap();
        assert_eq!(s.as_str(), "gfx942");
        assert_eq!(format!("{s:?} {t}"), "\"gfx942\" torch2.7.1-rocm6.3");
    }
}
