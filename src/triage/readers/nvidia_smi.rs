//! `nvidia-smi`: its banner (`NVIDIA-SMI 550.54.14  Driver Version: …  CUDA Version: 12.4`)
//! says the machine is an NVIDIA one.

use super::{Line, Seen};
use crate::triage::paste::Has;

/// Reads nvidia-smi output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    for l in lines {
        let t = l.text.as_ref();
        if t.has("NVIDIA-SMI ") && t.has("Driver Version") {
            let at = seen.at(t.trim().trim_matches('|').trim().to_string(), l.no);
            Seen::first(&mut seen.nvidia, at);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn banner() {
        let t = "+-----+\n| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4 |\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.nvidia.unwrap().src.line, 2);
        assert!(!run(read, "no nvidia here\n").0);
    }
}
