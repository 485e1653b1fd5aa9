//! `rocm-smi`: `--showproductname` (`GPU[0] : Card series: …`, `GFX Version: gfx1100`),
//! `--showhw` (a table with `DID` and, in newer builds, `GFX VER` columns; variable spacing),
//! `--showmeminfo vram gtt` (`VRAM Total Memory (B): 25753026560`, comma-grouped in some
//! builds), `--csv` (`device,Card series,…` then `cardN,…` rows) and `--json`
//! (`{"card0": {"Card series": "…", "GFX Version": "gfx9010", …}}`, one line or many). rocm-smi's
//! `gfx11002`-style display quirk (`gfx9010` for gfx90a) is decoded by [`super::gfx_in`].
//! Format: <https://github.com/ROCm/rocm_smi_lib/blob/develop/python_smi_tools/rocm_smi.py>.

use super::{Line, Seen, gfx_in, number, pci_id};
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use crate::triage::{Agent, At, Src};

/// One item of a `--json` line: `"card0": {` (a GPU object opens) or `"Key": "value"`.
#[derive(Debug, PartialEq, Eq)]
enum JsonItem<'a> {
    Card(&'a str),
    Field(&'a str, &'a str),
}

/// The items of one line, left to right, exactly as the regex
/// `"card([0-9]{1,4})"\s*:\s*\{|"([^"]{1,80})"\s*:\s*"([^"]{0,200})"` finds them (a test holds
/// the scanner to it). Hand-written because that regex, with its counted repetitions over
/// Unicode classes, took 11 M instructions to compile: about 3 ms added to every paste that
/// holds one `rocm-smi --json` line.
fn json_items(t: &str) -> Vec<JsonItem<'_>> {
    fn blanks(s: &str) -> &str {
        s.trim_start_matches(char::is_whitespace)
    }
    /// `"card0": {` at `rest` (just after the opening quote): the digits and the end.
    fn card(rest: &str) -> Option<(&str, &str)> {
        let r = rest.strip_prefix("card")?;
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=4).contains(&n) {
            return None;
        }
        let after = blanks(r[n..].strip_prefix('"')?);
        let after = blanks(after.strip_prefix(':')?);
        Some((&r[..n], after.strip_prefix('{')?))
    }
    /// `"Key": "value"` at `rest`: key, value and the end.
    fn field(rest: &str) -> Option<(&str, &str, &str)> {
        let k_end = rest.find('"')?;
        let key = &rest[..k_end];
        if key.is_empty() || key.chars().nth(80).is_some() {
            return None;
        }
        let after = blanks(&rest[k_end + 1..]);
        let after = blanks(after.strip_prefix(':')?).strip_prefix('"')?;
        let v_end = after.find('"')?;
        let value = &after[..v_end];
        if value.chars().nth(200).is_some() {
            return None;
        }
        Some((key, value, &after[v_end + 1..]))
    }
    let mut out = Vec::new();
    let mut p = 0;
    while let Some(q) = memchr::memchr(b'"', &t.as_bytes()[p..]) {
        let at = p + q;
        let rest = &t[at + 1..];
        let end = if let Some((n, end)) = card(rest) {
            out.push(JsonItem::Card(n));
            end
        } else if let Some((k, v, end)) = field(rest) {
            out.push(JsonItem::Field(k, v));
            end
        } else {
            p = at + 1;
            continue;
        };
        p = t.len() - end.len();
    }
    out
}

fn agent(seen: &mut Seen, idx: u32, line: u32) -> &mut Agent {
    seen.agent_at("rocm_smi", idx, line)
}

/// A byte count as `--showmeminfo` prints it, and its first word where a note follows it (`536870912
/// (512 MB)`, a reporter's `---------> according to my BIOS setting` typed after it).
fn bytes_value(v: &str) -> Option<u64> {
    number(v).or_else(|| number(v.split_whitespace().next()?))
}

/// Reads rocm-smi output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut hw_cols: Option<(usize, Option<usize>)> = None; // DID column, GFX VER column (token index)
    let mut csv_cols: Option<Vec<&str>> = None; // `--csv` header
    let mut json_card: Option<u32> = None; // the `--json` GPU object being read
    let mut concise: Option<bool> = None; // in the concise table (whether a row was read)
    for l in lines {
        let t = trim(&l.text);
        if json_card.is_some() && t.starts_with('}') {
            json_card = None; // the GPU object closed
        }
        if t.has("\"card") || (json_card.is_some() && t.starts_with('"')) {
            if let Some(c) = json_line(seen, t, &mut json_card, l.no) {
                fired |= c;
                continue;
            }
        }
        if t.has("ROCm System Management Interface") {
            fired = true;
            continue;
        }
        // `--csv`: a header `device,Card series,Card model,…`, then one `cardN,…` row per GPU.
        if let Some(rest) = t.strip_prefix("device,") {
            if rest
                .split(',')
                .any(|c| c.trim().starts_with("Card ") || c.trim() == "GFX Version")
            {
                csv_cols = Some(t.split(',').map(str::trim).collect());
                fired = true;
            }
            continue;
        }
        if let Some(cols) = &csv_cols {
            if let Some(rest) = t.strip_prefix("card")
                && let Some((idx, _)) = rest.split_once(',')
                && let Ok(idx) = idx.parse::<u32>()
            {
                csv_row(seen, cols, t, idx, l.no);
                continue;
            }
            csv_cols = None;
        }
        // `GPU[0]		: Key: value`, also after a prefix a script or a parallel shell prints
        // (`GPU detected: GPU[0] : …`, `node01: GPU[0] : …`)
        if let Some(rest) = t.strip_prefix("GPU[").or_else(|| smi_after_prefix(t))
            && let Some((idx, rest)) = rest.split_once(']')
            && let Ok(idx) = idx.trim().parse::<u32>()
        {
            let rest = rest.trim_start().trim_start_matches(':').trim();
            let Some((k, v)) = rest.split_once(':') else { continue };
            let (k, v) = (k.trim(), v.trim());
            fired = true;
            let file = seen.file;
            let src = Src { file, line: l.no };
            match k {
                "GFX Version" => {
                    if let Some(g) = gfx_in(v) {
                        agent(seen, idx, l.no).gfx = Some(At { v: g, src });
                    }
                }
                "Card series" | "Card Series" => {
                    let a = agent(seen, idx, l.no);
                    a.marketing = Some(v.to_string());
                    a.name_src = Some(src);
                }
                "Device ID" => {
                    if let Some(d) = pci_id(v) {
                        agent(seen, idx, l.no).device_id = Some(At { v: d, src });
                    }
                }
                "VRAM Total Memory (B)" => {
                    if let Some(n) = bytes_value(v) {
                        agent(seen, idx, l.no).vram = Some(At { v: n, src });
                    }
                }
                "GTT Total Memory (B)" => {
                    if let Some(n) = bytes_value(v) {
                        agent(seen, idx, l.no).gtt = Some(At { v: n, src });
                    }
                }
                _ => {}
            }
            continue;
        }
        // the concise table of rocm-smi 6.1 and later (`Device  Node  IDs  Temp …` over
        // `(DID,     GUID)`): each row's DID is the GPU's PCI device id (the `[Model : Revision]`
        // column of 6.0 can hold the subsystem id and is not read, as `Card model` below)
        if t.starts_with("Device") && t.has(" Node") && t.has(" IDs") {
            concise = Some(false);
            fired = true;
            continue;
        }
        if let Some(rows) = concise {
            concise = concise_row(seen, t, rows, l.no);
            continue;
        }
        // --showhw table.
        if hw_cols.is_none() && !t.starts_with("GPU") {
            continue;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        if toks.first() == Some(&"GPU") && toks.contains(&"DID") {
            let did = toks.iter().position(|x| *x == "DID");
            let gfx = toks.windows(2).position(|w| w == ["GFX", "VER"]);
            // Column positions count multi-word headers once: map header words to data tokens.
            let words_before = |i: usize| {
                toks[..i]
                    .iter()
                    .filter(|w| !["VER", "RAS", "ID"].contains(w) || i == 0)
                    .count()
            };
            hw_cols = did.map(|d| (words_before(d), gfx.map(words_before)));
            fired = true;
            continue;
        }
        if let Some((did_col, gfx_col)) = hw_cols {
            if toks.is_empty() || toks[0].starts_with('=') {
                hw_cols = None;
                continue;
            }
            let Ok(idx) = toks[0].parse::<u32>() else {
                continue;
            };
            let file = seen.file;
            let src = Src { file, line: l.no };
            // Data tokens are looked up by shape as well as by column: spacing varies.
            let did = toks.get(did_col).and_then(|x| pci_id(x)).or_else(|| {
                toks.iter()
                    .skip(1)
                    .find(|x| x.starts_with("0x") && x.len() == 6)
                    .and_then(|x| pci_id(x))
            });
            let gfx = gfx_col
                .and_then(|c| toks.get(c))
                .and_then(|x| gfx_in(x))
                .or_else(|| toks.iter().find_map(|x| gfx_in(x)));
            let a = agent(seen, idx, l.no);
            if let Some(d) = did {
                a.device_id = Some(At { v: d, src });
            }
            if let Some(g) = gfx {
                a.gfx = Some(At { v: g, src });
            }
        }
    }
    fired
}

/// One line inside rocm-smi 6.1+'s concise table (`rows`: whether a row was read): a row's DID
/// (`0       1     0x73df,   61797  65.0°C …`) is its GPU's PCI device id. Returns whether the
/// table goes on (and whether a row was read), `None` at its closing rule.
fn concise_row(seen: &mut Seen, t: &str, rows: bool, line: u32) -> Option<bool> {
    if t.starts_with('=') || t.is_empty() {
        return (!rows).then_some(false);
    }
    let toks: Vec<&str> = t.split_whitespace().collect();
    if let (Some(Ok(idx)), Some(d)) = (
        toks.first().map(|x| x.parse::<u32>()),
        toks.get(2)
            .filter(|x| x.starts_with("0x"))
            .and_then(|x| pci_id(x.trim_end_matches(','))),
    ) {
        let src = Src { file: seen.file, line };
        agent(seen, idx, line).device_id = Some(At { v: d, src });
        return Some(true);
    }
    Some(rows)
}

/// One line of `--json` output: GPU objects open with `"cardN": {`, their fields follow (read
/// by [`field`]). Returns None when the line holds no JSON field at all.
fn json_line(seen: &mut Seen, t: &str, card: &mut Option<u32>, line: u32) -> Option<bool> {
    let mut any = false;
    let mut fired = false;
    for item in json_items(t) {
        any = true;
        match item {
            JsonItem::Card(n) => {
                *card = n.parse().ok();
                if let Some(i) = *card {
                    agent(seen, i, line);
                    fired = true;
                }
            }
            JsonItem::Field(k, v) => {
                if let Some(i) = *card {
                    field(seen, i, line, k, v.trim());
                }
            }
        }
    }
    any.then_some(fired)
}

/// One `--csv` row (its fields as [`field`] reads them). A vendor cell may itself hold a comma
/// (`Advanced Micro Devices, Inc. [AMD/ATI]`): extra cells are folded into it.
fn csv_row(seen: &mut Seen, cols: &[&str], row: &str, idx: u32, line: u32) {
    let mut cells: Vec<String> = row.split(',').map(|c| c.trim().to_string()).collect();
    if let Some(v) = cols.iter().position(|c| c.eq_ignore_ascii_case("Card vendor")) {
        while cells.len() > cols.len() && v + 1 < cells.len() {
            let next = cells.remove(v + 1);
            cells[v] = format!("{}, {next}", cells[v]);
        }
    }
    for (k, v) in cols.iter().zip(cells.iter()) {
        field(seen, idx, line, k, v);
    }
}

/// One named field of GPU `idx`, as `--json` and `--csv` name them. `Card model` is not read:
/// rocm-smi prints the PCI *subsystem* id there (`0x0c34` on an MI100), not the device id. The
/// first product name of a GPU wins.
fn field(seen: &mut Seen, idx: u32, line: u32, k: &str, v: &str) {
    let src = Src { file: seen.file, line };
    match k {
        "Card series" | "Card Series" | "Device Name" if !v.is_empty() && v != "N/A" => {
            let a = agent(seen, idx, line);
            if a.marketing.is_none() {
                a.marketing = Some(v.to_string());
                a.name_src = Some(src);
            }
        }
        "GFX Version" => {
            if let Some(g) = gfx_in(v) {
                agent(seen, idx, line).gfx = Some(At { v: g, src });
            }
        }
        "Device ID" | "GPU ID" => {
            if let Some(d) = pci_id(v) {
                agent(seen, idx, line).device_id = Some(At { v: d, src });
            }
        }
        "VRAM Total Memory (B)" => {
            if let Some(n) = bytes_value(v) {
                agent(seen, idx, line).vram = Some(At { v: n, src });
            }
        }
        "GTT Total Memory (B)" => {
            if let Some(n) = bytes_value(v) {
                agent(seen, idx, line).gtt = Some(At { v: n, src });
            }
        }
        _ => {}
    }
}

/// A `GPU[N]` row after a short prefix that ends in a blank (a script's label, a host name):
/// the text after `GPU[`.
fn smi_after_prefix(t: &str) -> Option<&str> {
    let p = t.at("GPU[")?;
    (p > 0 && p <= 60 && t.as_bytes()[p - 1].is_ascii_whitespace()).then(|| &t[p + 4..])
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn productname_and_meminfo() {
        // Layout of rocm-smi 6.x `--showproductname --showmeminfo vram gtt` (values ours).
        let t = "============================ ROCm System Management Interface ============================\n\
GPU[0]\t\t: Card series: \t\tNavi 33 [Radeon RX 7700S/7600/7600S/7600M XT/PRO W7600]\n\
GPU[0]\t\t: GFX Version: \t\tgfx11002\n\
GPU[0]\t\t: VRAM Total Memory (B): 8,573,157,376\n\
GPU[0]\t\t: GTT Total Memory (B): 33462882304\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        let a = &s.agents[0];
        assert_eq!(a.gfx.as_ref().unwrap().v, "gfx1102", "the gfx11002 quirk is gfx1102");
        assert_eq!(a.vram.as_ref().unwrap().v, 8_573_157_376);
        assert_eq!(a.gtt.as_ref().unwrap().v, 33_462_882_304);
        assert_eq!(a.vram.as_ref().unwrap().src.line, 4);
    }

    #[test]
    fn meminfo_with_a_note_after_the_count() {
        // a reporter's own note typed after the value (values ours)
        let t = "GPU[0]\t\t: VRAM Total Memory (B): 1073741824 (1 GB)   <- set in the BIOS\n\
GPU[0]\t\t: GTT Total Memory (B): 68719476736 -------- half of RAM\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v), Some(1_073_741_824));
        assert_eq!(s.agents[0].gtt.as_ref().map(|v| v.v), Some(68_719_476_736));
    }

    #[test]
    fn rows_after_a_scripts_prefix() {
        // A test script's label or a host name before rocm-smi's rows (values ours); a `GPU[`
        // inside a word or far into a line is not a row.
        let (fired, s) = run(read, "GPU detected: GPU[0]\t\t: GFX Version: \t\tgfx950\n");
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx950");
        let (_, s) = run(read, "node07: GPU[1]\t\t: Card series: \t\tAMD Instinct MI210\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Instinct MI210"));
        assert_eq!(super::smi_after_prefix("myGPU[0] : GFX Version: gfx950"), None);
    }

    #[test]
    fn the_concise_tables_device_ids() {
        // rocm-smi 6.1+ default view (layout as ROCm's rocm_smi.py prints it; values ours)
        let t = "=================== ROCm System Management Interface ===================
============================= Concise Info =============================
Device  Node  IDs              Temp    Power  Partitions          SCLK   MCLK     Fan  Perf  PwrCap  VRAM%  GPU%
              (DID,     GUID)  (Edge)  (Avg)  (Mem, Compute, ID)
========================================================================
0       1     0x744c,   12345  40.0°C  20.0W  N/A, N/A, 0         0Mhz   96Mhz    0%   auto  303.0W  1%     0%
1       2     0x164e,   54321  45.0°C  10.0W  N/A, N/A, 0         0Mhz   96Mhz    0%   auto  N/A     5%     0%
========================================================================
=========================== End of ROCm SMI Log ===========================
";
        let (fired, s) = run(read, t);
        assert!(fired);
        let ids: Vec<(u32, u32)> = s
            .agents
            .iter()
            .map(|a| (a.index.unwrap_or(99), a.device_id.as_ref().map_or(0, |d| d.v)))
            .collect();
        assert_eq!(ids, [(0, 0x744c), (1, 0x164e)]);
        // 6.0's `[Model : Revision]` column is not read (a subsystem id on some boards)
        let t = "Device  [Model : Revision]    Temp    Power
        Name (20 chars)       (Edge)  (Socket)
=====
0       [0x0c34 : 0x02]       32.0°C  35.0W
";
        let (_, s) = run(read, t);
        assert!(s.agents.iter().all(|a| a.device_id.is_none()));
    }

    #[test]
    fn showhw_table_with_and_without_gfx_column() {
        let t = "GPU  NODE  DID     GUID   GFX VER  GFX RAS  SDMA RAS  UMC RAS  VBIOS  BUS           PARTITION ID\n\
0    1     0x744c  53402  gfx1100  N/A      N/A       N/A      113-D  0000:03:00.0  0\n\
1    2     0x164e  11220  gfx1036  N/A      N/A       N/A      113-R  0000:10:00.0  0\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents.len(), 2);
        assert_eq!(s.agents[0].device_id.as_ref().unwrap().v, 0x744c);
        assert_eq!(s.agents[1].gfx.as_ref().unwrap().v, "gfx1036");
        let old = "GPU  DID    GFX RAS  SDMA RAS  UMC RAS  VBIOS           BUS\n0    73bf   N/A      N/A       N/A      113-D4120500-101  0000:0B:00.0\n";
        let (_, s) = run(read, old);
        assert_eq!(s.agents[0].device_id.as_ref().unwrap().v, 0x73bf);
        assert!(s.agents[0].gfx.is_none());
    }

    #[test]
    fn csv_productname_reads_the_series_not_the_card_model() {
        // Layout of `rocm-smi --showproductname --csv` (rocm-smi 4.x/5.x); values ours.
        let t = "device,Card series,Card model,Card vendor,Card SKU\n\
card0,Vega 20 [Radeon Pro VII],0x081e,Advanced Micro Devices, Inc. [AMD/ATI],D16304\n\
card1,Vega 20 [Radeon Pro VII],0x081e,Advanced Micro Devices, Inc. [AMD/ATI],D16304\n\
cardsystem,6.2.4\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents.len(), 2);
        assert_eq!(s.agents[1].index, Some(1));
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Vega 20 [Radeon Pro VII]"));
        assert_eq!(s.agents[0].name_src.unwrap().line, 2);
        assert!(
            s.agents[0].device_id.is_none(),
            "Card model is a subsystem id, not a device id"
        );
        let (fired, s) = run(read, "device,Driver version\ncardsystem,4.18.0\n");
        assert!(!fired && s.agents.is_empty(), "a driver-version csv lists no GPU");
    }

    #[test]
    fn json_on_one_line_and_pretty_printed() {
        // Layout of `rocm-smi --showproductname --json` / `-a --json` (rocm-smi 5.x/6.x); values ours.
        let one = r#"{"card0": {"Card series": "AMD INSTINCT MI250X", "Card model": "0x0b0c", "GFX Version": "gfx9010", "GPU ID": "0x7408"}, "card1": {"Card series": "AMD INSTINCT MI250X", "GFX Version": "gfx9010"}, "system": {"Driver version": "6.2.4"}}"#;
        let (fired, s) = run(read, one);
        assert!(fired);
        assert_eq!(s.agents.len(), 2);
        assert_eq!(
            s.agents[0].gfx.as_ref().unwrap().v,
            "gfx90a",
            "gfx9010 is rocm-smi's gfx90a"
        );
        assert_eq!(s.agents[0].device_id.as_ref().unwrap().v, 0x7408);
        assert_eq!(s.agents[1].index, Some(1));
        assert!(s.agents[1].device_id.is_none(), "Card model is not a device id");
        let pretty = "{\n    \"card0\": {\n        \"Device Name\": \"Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]\",\n        \"Device ID\": \"0x744c\",\n        \"VRAM Total Memory (B)\": \"25753026560\"\n    }\n}\n";
        let (fired, s) = run(read, pretty);
        assert!(fired);
        let a = &s.agents[0];
        assert_eq!(a.device_id.as_ref().unwrap().v, 0x744c);
        assert_eq!(a.vram.as_ref().unwrap().v, 25_753_026_560);
        assert_eq!(a.name_src.unwrap().line, 3);
        // JSON that is not rocm-smi's does not fire
        let (fired, s) = run(read, r#"{"name": "x", "cards": 2}"#);
        assert!(!fired && s.agents.is_empty());
    }

    #[test]
    fn json_scanner_equals_its_regex() {
        use super::{JsonItem, json_items};
        let re = regex::Regex::new(r#""card([0-9]{1,4})"\s*:\s*\{|"([^"]{1,80})"\s*:\s*"([^"]{0,200})""#).unwrap();
        fn by_regex<'t>(re: &regex::Regex, t: &'t str) -> Vec<JsonItem<'t>> {
            re.captures_iter(t)
                .map(|c| match c.get(1) {
                    Some(n) => JsonItem::Card(n.as_str()),
                    None => JsonItem::Field(c.get(2).unwrap().as_str(), c.get(3).unwrap().as_str()),
                })
                .collect()
        }
        let long_key = "k".repeat(80);
        let longer_key = "k".repeat(81);
        let long_value = "é".repeat(200);
        let longer_value = "v".repeat(201);
        let pieces = [
            "\"",
            "card",
            "0",
            "12345",
            "1",
            ":",
            " ",
            "\u{a0}",
            "{",
            "}",
            ",",
            "GFX Version",
            "gfx9010",
            "é",
            long_key.as_str(),
            longer_key.as_str(),
            long_value.as_str(),
            longer_value.as_str(),
            "\"card0\": {",
            "\"Card series\": \"Instinct MI210\"",
            "N/A",
            "\t",
        ];
        let mut next = super::super::xorshift(0x2545_f491_4f6c_dd1d);
        let mut items = 0;
        for _ in 0..20_000 {
            let n = 1 + (next() % 14) as usize;
            let line: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            let want = by_regex(&re, &line);
            items += want.len();
            assert_eq!(json_items(&line), want, "line {line:?}");
        }
        assert!(items > 2_000, "the generated lines hold items ({items})");
        let one =
            r#"{"card0": {"Card series": "Instinct MI210", "GFX Version": "gfx9010"}, "card1": {"Card Series": "x"}}"#;
        assert_eq!(json_items(one), by_regex(&re, one));
        assert_eq!(json_items(one).len(), 5);
    }
}
