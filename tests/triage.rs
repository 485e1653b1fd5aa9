//! `rocmcheck triage` end to end: the binary on pastes (findings point at pasted lines, the
//! issue's traps, unknown stays unknown), `--github-issue` against a 127.0.0.1 server serving
//! recorded GitHub REST pages (`tests/fixtures/github/`), and a deterministic mutation run.

mod support;

use rocmcheck::matrix::Matrix;
use rocmcheck::rules::{self, Scope};
use rocmcheck::triage::{self, Input};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
    c.env_remove("GITHUB_TOKEN")
        .env_remove("GITHUB_API_URL")
        .env_remove("ROCMCHECK_MATRIX")
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn read(name: &str, text: &str) -> triage::Triage {
    triage::triage(
        &[Input {
            name: name.into(),
            text: text.into(),
        }],
        Matrix::embedded(),
    )
}

fn codes(t: &triage::Triage) -> Vec<&'static str> {
    rules::run(Scope::Env, &t.facts, Matrix::embedded())
        .iter()
        .map(|f| f.code)
        .collect()
}

/// vLLM's collect_env (new layout) as `vllm/collect_env.py` prints it (vllm-project/vllm@030ea52e:
/// `ROCM Version` is `hipcc --version`'s `HIP version:`, the installed user space), modelled: a
/// torch wheel for ROCm 6.2 in an image whose hipcc is ROCm 6.4. No public paste of this shape
/// was found (tests/triage/corpus/README.md, "Not found"); the values are representative.
const VLLM_MISMATCH: &str = "\
==============================
       PyTorch Info
==============================
PyTorch version              : 2.5.1+rocm6.2
Is debug build               : False
CUDA used to build PyTorch   : N/A
ROCM used to build PyTorch   : 6.2.41133-dd7f95766
==============================
         vLLM Info
==============================
ROCM Version                 : 6.4.43482-0f2d60242
vLLM Version                 : 0.9.1
";

/// A torch/ROCm mismatch read from one vLLM collect_env: the wheel's ROCm (6.2) and
/// the installed ROCm (hipcc's 6.4) are both facts with their lines, and RC104 fires.
#[test]
fn vllm_collect_env_shows_torch_rocm_mismatch() {
    let t = read("vllm.txt", VLLM_MISMATCH);
    let rocm: Vec<String> = t.facts.rocm.iter().map(|r| r.value.version.clone()).collect();
    assert_eq!(rocm, ["6.4"], "installed ROCm from `ROCM Version`");
    let c = codes(&t);
    assert!(c.contains(&"RC104"), "{c:?}");
    // without the vLLM line there is no installed ROCm, so no mismatch can be claimed
    let t = read(
        "vllm.txt",
        &VLLM_MISMATCH.replace("ROCM Version                 : 6.4.43482-0f2d60242\n", ""),
    );
    assert!(t.facts.rocm.is_empty());
    assert!(!codes(&t).contains(&"RC104"));
    // `Could not collect` (no hipcc) is not a version
    let t = read(
        "vllm.txt",
        &VLLM_MISMATCH.replace("6.4.43482-0f2d60242", "Could not collect"),
    );
    assert!(t.facts.rocm.is_empty());
}

const NAVI32_OVERRIDE: &str = "\
PyTorch version: 2.3.0+rocm6.0
ROCM used to build PyTorch: 6.0.32830-d62f6a171
GPU models and configuration: AMD Radeon RX 7800 XT (gfx1100)
$ rocminfo | grep -E 'Name|Marketing|Chip'
  Name:                    gfx1100
  Marketing Name:          AMD Radeon RX 7800 XT
  Chip ID:                 29822(0x747e)
";

/// Trap: a rocminfo `Name: gfx1100` on a Navi 32 chip id is what
/// `HSA_OVERRIDE_GFX_VERSION=11.0.0` produces; say so, and judge the hardware target.
#[test]
fn navi32_chip_named_gfx1100_is_an_override() {
    let t = read("p.txt", NAVI32_OVERRIDE);
    assert_eq!(t.summary.gfx, ["gfx1101"]);
    let target = &t.facts.targets[0].value;
    assert_eq!(target.effective.as_deref(), Some("gfx1100"));
    assert!(
        t.notes
            .iter()
            .any(|(n, _)| n.contains("HSA_OVERRIDE_GFX_VERSION=11.0.0")),
        "{:?}",
        t.notes
    );
    let o = run_stdin(&["triage", "-"], NAVI32_OVERRIDE);
    let out = text(&o);
    assert!(out.contains("-:5:1: note:"), "{out}");
    assert!(out.contains("runs as gfx1100"), "{out}");
}

/// Trap: WSL has no KFD sysfs. A paste never yields "KFD missing" or "no AMD GPU"
/// because it does not mention them.
#[test]
fn wsl_and_silence_never_mean_missing() {
    let wsl = "PyTorch version: 2.4.0+rocm6.1\nROCM used to build PyTorch: 6.1.40091-a8dbc0c19\nOS: Ubuntu 22.04.4 LTS (x86_64)\nPython platform: Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\nGPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)\n";
    for (name, paste) in [
        ("wsl", wsl),
        ("bare torch", "torch==2.5.1+rocm6.2\n"),
        ("nothing", "hello\n"),
    ] {
        let t = read(name, paste);
        let c = codes(&t);
        for bad in ["RC301", "RC302", "RC303", "RC309", "RC310", "RC312"] {
            assert!(!c.contains(&bad), "{name}: {bad} from silence: {c:?}");
        }
        assert!(t.facts.devices.is_none() && t.facts.python.is_none() && t.facts.libraries.is_empty());
    }
    assert!(read("wsl", wsl).summary.wsl);
}

/// An APU's VRAM is the driver's `NNNNM of VRAM memory ready`, not an application's device total
/// (llama.cpp's Vulkan line counts shared memory): values ours, shaped like a Strix Halo report.
#[test]
fn the_driver_s_vram_wins_over_an_app_s_device_total() {
    let paste = "[Fri May 22 23:25:43 2026] amdgpu 0000:bd:00.0:  1024M of VRAM memory ready\n\
[Fri May 22 23:25:43 2026] amdgpu 0000:bd:00.0:  122880M of GTT memory ready.\n\
0.01.074.446 I   - Vulkan0 : AMD Radeon 8060S Graphics (RADV GFX1151) (123904 MiB, 123738 MiB free)\n";
    let t = read("apu", paste);
    assert_eq!(t.summary.vram_bytes, Some(1 << 30), "{:?}", t.summary);
}

/// Two tools' lines, one naming the dGPU's target, the other the iGPU's (an app that picked the
/// iGPU): two GPUs and RC308, not one GPU with conflicting targets. Within one generation (an
/// override shows an APU as a discrete target) and with an override in the paste: one GPU.
/// Values ours, shaped on patientx-cfz/comfyui-rocm#115.
#[test]
fn an_igpu_target_beside_a_dgpu_target_from_two_tools_is_two_gpus() {
    let t = read("mix", "[INFO] GPU arch: gfx1200\n[INFO] AMD arch: gfx1036\n");
    let mut g: Vec<String> = t.facts.gpus.iter().filter_map(|g| g.gfx.clone()).collect();
    g.sort();
    assert_eq!(g, ["gfx1036", "gfx1200"]);
    assert!(codes(&t).contains(&"RC308"), "{:?}", codes(&t));
    let t = read(
        "one",
        "HSA_OVERRIDE_GFX_VERSION=10.3.0\n[INFO] GPU arch: gfx1201\n[INFO] AMD arch: gfx1036\n",
    );
    assert_eq!(t.facts.gpus.len(), 1);
    let t = read("gen", "[INFO] GPU arch: gfx1100\n[INFO] AMD arch: gfx1103\n");
    assert_eq!(t.facts.gpus.len(), 1);
}

/// A known issue of some platforms only (`when: platforms:`, schema 4): the APU GTT limit, a
/// Linux kernel's, is said on a Linux paste and not on a Windows one (values ours).
#[test]
fn a_linux_only_known_issue_is_not_said_on_windows() {
    let gtt = |t: &triage::Triage| {
        rules::run(Scope::Env, &t.facts, Matrix::embedded())
            .iter()
            .any(|f| f.code == "RC100" && f.title.contains("GTT"))
    };
    let linux = read(
        "linux",
        "Linux box 6.18.2-arch1-1 #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\nName: gfx1151\n",
    );
    assert!(gtt(&linux), "{:?}", codes(&linux));
    let windows = read("windows", "C:\\Users\\me> hipInfo.exe\ngcnArchName: gfx1151\n");
    assert_eq!(
        windows.facts.targets.len(),
        1,
        "the target is read: {:?}",
        windows.facts.targets
    );
    assert!(!gtt(&windows), "{:?}", codes(&windows));
}

/// A known issue about overriding a target (`gfx: [gfx1103]` with the override set) is about a
/// GPU of that target: not said of a gfx1102 that an override makes present gfx1103, and said of
/// a gfx1103 overridden to gfx1100 (values ours).
#[test]
fn an_override_issue_is_about_the_gpu_s_own_target() {
    let hang = |t: &triage::Triage| {
        rules::run(Scope::Env, &t.facts, Matrix::embedded())
            .iter()
            .any(|f| f.code == "RC100" && f.title.contains("hang"))
    };
    let presented = read(
        "presented",
        "- GPU: AMD Radeon RX 7600 (`gfx1102`), run via `HSA_OVERRIDE_GFX_VERSION=11.0.3` so it presents as `gfx1103`\n",
    );
    assert_eq!(presented.facts.targets.len(), 1, "{:?}", presented.facts.targets);
    assert!(!hang(&presented), "{:?}", codes(&presented));
    let own = read(
        "own",
        "Name: gfx1103\nMarketing Name: AMD Radeon 780M\nHSA_OVERRIDE_GFX_VERSION=11.0.0\n",
    );
    assert!(hang(&own), "{:?}", codes(&own));
}

/// RC302 from a paste (event class of schema 5): a line that says `/dev/kfd` does not exist on a
/// Linux machine; not where the platform has no `/dev/kfd` (Windows' Docker Desktop, macOS), and
/// not a program that only probes the path (values ours).
#[test]
fn a_missing_kfd_node_in_a_paste_is_rc302_on_linux_only() {
    let docker = "docker: Error response from daemon: error gathering device information while adding custom device \"/dev/kfd\": no such file or directory.\n";
    let linux = read("linux", &format!("$ uname -r\n6.18.2-arch1-1\n{docker}"));
    assert!(codes(&linux).contains(&"RC302"), "{:?}", codes(&linux));
    let ls = read(
        "ls",
        "$ zgrep CONFIG_HSA_AMD /proc/config.gz\nCONFIG_HSA_AMD=y\n$ ls -l /dev/kfd\nls: cannot access '/dev/kfd': No such file or directory\n",
    );
    assert!(codes(&ls).contains(&"RC302"), "{:?}", codes(&ls));
    // no platform shown (a Docker Desktop on Windows or macOS says the same): nothing
    let bare = read("bare", docker);
    assert!(!codes(&bare).contains(&"RC302"), "{:?}", codes(&bare));
    let windows = read(
        "windows",
        &format!("PS C:\\Users\\me> docker run --device=/dev/kfd img\n{docker}"),
    );
    assert!(!codes(&windows).contains(&"RC302"), "{:?}", codes(&windows));
    let probe = read(
        "probe",
        "FileNotFoundError: [Errno 2] No such file or directory: '/dev/kfd'\nlibamd_comgr.dylib is in /opt/homebrew/lib\n",
    );
    assert!(!codes(&probe).contains(&"RC302"), "{:?}", codes(&probe));
}

/// RC304 from torch's own words (event class of schema 6): `Found no NVIDIA driver on your
/// system` is a CUDA build's, also where pip's log shows the bare version it put in place of a
/// ROCm wheel; not where the paste names ZLUDA (values ours, shapes of 2026 threads).
#[test]
fn found_no_nvidia_driver_is_a_cuda_build() {
    let swap = "  Attempting uninstall: torch\n    Found existing installation: torch 2.11.0+rocm7.2\n    Uninstalling torch-2.11.0+rocm7.2:\n      Successfully uninstalled torch-2.11.0+rocm7.2\nSuccessfully installed torch-2.9.1 torchvision-0.24.1\n";
    let err = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n";
    let t = read("swap", &format!("{swap}{err}"));
    assert_eq!(
        t.summary.torch.as_deref(),
        Some("2.9.1"),
        "the installed torch, not the removed one"
    );
    assert!(codes(&t).contains(&"RC304"), "{:?}", codes(&t));
    let alone = read("alone", err);
    assert!(codes(&alone).contains(&"RC304"), "{:?}", codes(&alone));
    let zluda = read("zluda", &format!("Using ZLUDA in C:\\ZLUDA\n{err}"));
    assert!(!codes(&zluda).contains(&"RC304"), "{:?}", codes(&zluda));
    // a ROCm build's version says which build it is: torch's message does not outrank it
    let rocm = read("rocm", &format!("torch 2.9.1+rocm6.4\n{err}"));
    assert!(!codes(&rocm).contains(&"RC304"), "{:?}", codes(&rocm));
}

/// A new wording of a known failure is a signature only (`amdgpu-ring-reset` in
/// `matrix/signatures.yaml`): amdgpu's ring reset, in a kernel log or quoted in a report's table,
/// is RC315; a sentence that only contains the words is not (values ours).
#[test]
fn a_ring_reset_is_rc315_wherever_it_is_quoted() {
    let table = read(
        "table",
        "| | Crash #1 |\n|---|---|\n| Ring reset outcome | `Ring comp_1.1.0 reset succeeded` |\n",
    );
    assert!(codes(&table).contains(&"RC315"), "{:?}", codes(&table));
    let log = read(
        "log",
        "[ 812.204] amdgpu 0000:c4:00.0: amdgpu: Ring gfx_0.0.0 reset failed\n",
    );
    assert!(codes(&log).contains(&"RC315"), "{:?}", codes(&log));
    let prose = read("prose", "the string during reset succeeded, as expected\n");
    assert!(!codes(&prose).contains(&"RC315"), "{:?}", codes(&prose));
}

/// Traps through the whole pipeline: rocm-smi's `gfx11002` and KFD's 90402.
#[test]
fn display_quirks_decode_to_real_targets() {
    let t = read("smi", "GPU[0]\t\t: GFX Version: \t\tgfx11002\n");
    assert_eq!(t.summary.gfx, ["gfx1102"]);
    let t = read("kfd", "gfx_target_version 90402\n");
    assert_eq!(t.summary.gfx, ["gfx942"]);
}

/// Findings point at the pasted line, in every format.
#[test]
fn findings_point_at_pasted_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("issue.txt");
    std::fs::write(&p, "My setup:\n```\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\ntorch==2.5.1+rocm6.2\n$ rocminfo | grep Name\n  Name:   gfx1100\n```\n").unwrap();
    let ps = p.to_str().unwrap();
    let o = bin().args(["triage", ps, "--format", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let findings = v["subjects"][0]["findings"].as_array().unwrap();
    let rc202 = findings
        .iter()
        .find(|f| f["code"] == "RC202")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(rc202["origin"]["line"], 3, "{rc202:#}");
    assert_eq!(rc202["origin"]["path"], ps);
    assert_eq!(o.status.code(), Some(1), "errors fail the run");
    let o = bin().args(["triage", ps]).output().unwrap();
    assert!(
        text(&o).contains("  3 | export HSA_OVERRIDE_GFX_VERSION=10.3.0"),
        "{}",
        text(&o)
    );
    let o = bin().args(["triage", ps, "--format", "markdown"]).output().unwrap();
    let md = text(&o);
    assert!(md.starts_with("<!-- rocmcheck-triage -->\n"), "{md}");
    assert!(md.contains("**Likely causes**") && md.contains("<details>"), "{md}");
    assert!(md.contains(&format!("`{ps}:3:1`")), "{md}");
}

/// A setting repeated on many lines is one fact: the last line of its value, with the count;
/// the value in effect is the last one set.
#[test]
fn repeated_settings_are_one_fact_with_their_count() {
    let mut paste = String::new();
    for _ in 0..1000 {
        paste.push_str("HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
    }
    paste.push_str("HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
    paste.push_str("HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
    let t = read("p", &paste);
    let rows: Vec<_> = t
        .provenance
        .iter()
        .filter(|p| p.fact == "env.HSA_OVERRIDE_GFX_VERSION")
        .collect();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!(
        (rows[0].value.as_str(), rows[0].line, rows[0].repeats),
        ("11.0.0", 1001, None)
    );
    assert_eq!(
        (rows[1].value.as_str(), rows[1].line, rows[1].repeats),
        ("10.3.0", 1002, Some(1001))
    );
    let e = t.facts.env_var("HSA_OVERRIDE_GFX_VERSION").unwrap();
    assert_eq!(e.value.value, "10.3.0", "the last setting is in effect");
    assert_eq!(t.summary.hsa_override.as_deref(), Some("10.3.0"));
}

/// Past the most different settings kept, a further name is counted and said; a new value of a
/// kept name still replaces it (the value in effect stays right).
#[test]
fn settings_past_the_cap_are_counted_and_the_value_in_effect_kept() {
    let mut paste = String::from("HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
    for n in 0..triage::MAX_SETTINGS + 5 {
        paste.push_str(&format!("HIP_X_{n}=1\n"));
    }
    paste.push_str("HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
    let t = read("p", &paste);
    let env: Vec<_> = t.facts.env.iter().collect();
    assert_eq!(env.len(), triage::MAX_SETTINGS);
    assert_eq!(
        t.facts.env_var("HSA_OVERRIDE_GFX_VERSION").unwrap().value.value,
        "11.0.0"
    );
    assert!(t.facts.env_var(&format!("HIP_X_{}", triage::MAX_SETTINGS)).is_none());
    assert!(
        t.notes.iter().any(
            |(n, _)| n.contains("more than 10000 different environment variables") && n.contains("left 6 settings")
        ),
        "{:?}",
        t.notes
    );
}

/// CR-only line ends number lines as an editor does; a CR inside LF lines stays in its line.
#[test]
fn carriage_return_line_ends_give_real_line_numbers() {
    let t = read("p", "some text\rmore\rHSA_OVERRIDE_GFX_VERSION=10.3.0\r");
    let e = t.facts.env_var("HSA_OVERRIDE_GFX_VERSION").unwrap();
    assert!(
        matches!(e.origin, rocmcheck::facts::Origin::File { line: 3, .. }),
        "{:?}",
        e.origin
    );
    let p = t
        .provenance
        .iter()
        .find(|p| p.fact == "env.HSA_OVERRIDE_GFX_VERSION")
        .unwrap();
    assert_eq!((p.line, p.text.as_str()), (3, "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
    let t = read(
        "p",
        "a\r\nprogress 10%\rprogress 100%\nHSA_OVERRIDE_GFX_VERSION=10.3.0\r\n",
    );
    let p = t
        .provenance
        .iter()
        .find(|p| p.fact == "env.HSA_OVERRIDE_GFX_VERSION")
        .unwrap();
    assert_eq!((p.line, p.text.as_str()), (3, "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
}

/// A paste that leaves the target open ends with the command that settles it.
#[test]
fn what_is_missing() {
    let t = read("p", "torch==2.5.1+rocm6.2\n");
    let cmds: Vec<&str> = t.missing.iter().map(|m| m.command.as_str()).collect();
    assert!(cmds.iter().any(|c| c.starts_with("rocminfo")), "{cmds:?}");
    assert!(cmds.contains(&"cat /opt/rocm/.info/version"), "{cmds:?}");
    let t = read("p", "GPU[0]\t\t: GFX Version: \t\tgfx1151\n");
    assert!(
        t.missing.iter().any(|m| m.what.contains("APU memory")),
        "{:?}",
        t.missing
    );
    assert!(!t.missing.iter().any(|m| m.command.starts_with("rocminfo")));
}

/// Our own NVIDIA machine (the recorded device run in tests/fixtures/device/lead-run/): an NVIDIA paste says so and judges no AMD stack.
#[test]
fn nvidia_device_run_pastes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/device/x2-run");
    let inputs: Vec<Input> = ["collect_env.txt", "nvidia-smi.txt"]
        .iter()
        .map(|f| Input {
            name: f.to_string(),
            text: std::fs::read_to_string(dir.join(f)).unwrap(),
        })
        .collect();
    let t = triage::triage(&inputs, Matrix::embedded());
    assert!(t.summary.nvidia, "{:?}", t.summary);
    assert!(t.summary.gfx.is_empty());
    assert!(
        t.missing.is_empty(),
        "nothing to ask an NVIDIA machine: {:?}",
        t.missing
    );
    let c = codes(&t);
    assert!(
        !c.iter().any(|c| ["RC301", "RC302", "RC102", "RC103"].contains(c)),
        "{c:?}"
    );
}

/// An unreadable input is a located error (exit 2) that does not hide the other inputs' results.
#[test]
fn unreadable_input_is_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.txt");
    std::fs::write(&good, "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n  Name: gfx1100\n").unwrap();
    let o = bin()
        .args(["triage", "/nonexistent/paste.txt", good.to_str().unwrap()])
        .output()
        .unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    // the error on stderr, the report of the readable input on stdout
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("error: /nonexistent/paste.txt: cannot read"), "{err}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("/nonexistent"), "{stdout}");
    assert!(stdout.contains("RC202"), "the readable input is still judged: {out}");
    let o = bin().args(["triage"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("nothing to read"));
}

// ------------------------------------------------------------------ GitHub, on 127.0.0.1

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

type Handler = dyn Fn(&str, &str, usize) -> Reply + Send + Sync;

/// A minimal HTTP/1.1 server on 127.0.0.1: `handler(base, path, nth request)`; records the
/// request heads it received.
fn serve(handler: Box<Handler>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let (b, s, h) = (base.clone(), seen.clone(), Arc::new(handler));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (b, s, h) = (b.clone(), s.clone(), h.clone());
            std::thread::spawn(move || answer(stream, &b, &s, &*h));
        }
    });
    (base, seen)
}

fn answer(mut s: TcpStream, base: &str, seen: &Mutex<Vec<String>>, handler: &Handler) {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = Vec::new();
    let mut buf = [0u8; 4096];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => req.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&req).to_string();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let n = {
        let mut v = seen.lock().unwrap();
        v.push(head);
        v.len()
    };
    let r = handler(base, &path, n);
    let mut out = format!(
        "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n",
        r.status,
        r.body.len()
    );
    for (k, v) in r.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let _ = s.write_all(out.as_bytes());
    let _ = s.write_all(&r.body);
    let _ = s.flush();
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/github")
            .join(name),
    )
    .unwrap()
}

fn ok(body: Vec<u8>, headers: Vec<(String, String)>) -> Reply {
    let mut h = vec![
        ("x-ratelimit-limit".to_string(), "60".to_string()),
        ("x-ratelimit-remaining".to_string(), "57".to_string()),
    ];
    h.extend(headers);
    Reply {
        status: 200,
        headers: h,
        body,
    }
}

fn thread_server() -> (String, Arc<Mutex<Vec<String>>>) {
    serve(Box::new(|base, path, _| {
        let p = "/repos/example/rocm-app/issues/42";
        if path == p {
            ok(fixture("issue.json"), vec![])
        } else if path == format!("{p}/comments?per_page=100") {
            let next = format!(
                "<{base}{p}/comments?per_page=100&page=2>; rel=\"next\", <{base}{p}/comments?per_page=100&page=2>; rel=\"last\""
            );
            ok(fixture("comments-1.json"), vec![("Link".into(), next)])
        } else if path == format!("{p}/comments?per_page=100&page=2") {
            ok(fixture("comments-2.json"), vec![])
        } else {
            Reply {
                status: 404,
                headers: vec![],
                body: br#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}"#
                    .to_vec(),
            }
        }
    }))
}

#[test]
fn github_issue_thread() {
    let (base, seen) = thread_server();
    let o = bin()
        .args([
            "triage",
            "--github-issue",
            "example/rocm-app#42",
            "--api-url",
            &base,
            "--facts",
        ])
        .env("GITHUB_TOKEN", "test-token-123")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v["summary"];
    assert_eq!(s["gfx"], serde_json::json!(["gfx1101"]), "{s:#}");
    let chip = v["provenance"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["fact"] == "rocminfo[0].device_id")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(chip["file"], "example/rocm-app#42 comment 5001");
    assert_eq!(chip["line"], 6);
    assert_eq!(chip["text"], "Chip ID:                 29822(0x747e)");
    assert_eq!(
        s["hsa_override"], "11.0.0",
        "the bot's own reply (marker) is not read: {s:#}"
    );
    assert_eq!(s["rocm"], "6.0.2", "page 2 was read: {s:#}");
    assert_eq!(s["torch"], "2.3.0+rocm6.0");
    let heads = seen.lock().unwrap().clone();
    assert_eq!(heads.len(), 3, "issue + 2 comment pages: {heads:#?}");
    for h in &heads {
        let l = h.to_ascii_lowercase();
        assert!(l.contains("authorization: bearer test-token-123"), "{h}");
        assert!(l.contains("accept: application/vnd.github+json"), "{h}");
        assert!(l.contains("x-github-api-version: 2022-11-28"), "{h}");
        assert!(l.contains("user-agent: rocmcheck/"), "{h}");
    }
    // Findings name the comment and line they rest on.
    let o = bin()
        .args([
            "triage",
            "--github-issue",
            "example/rocm-app#42",
            "--api-url",
            &base,
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<String> = v["subjects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["origin"]["path"].as_str().map(str::to_string))
        .collect();
    assert!(paths.iter().any(|p| p.starts_with("example/rocm-app#42")), "{v:#}");
    let notes = v["subjects"][0]["notes"].to_string();
    assert!(notes.contains("example/rocm-app#42 comment 5001"), "{notes}");
    assert!(!heads.is_empty());
}

#[test]
fn github_rate_limit_exhausted_says_when_it_resets() {
    let (base, _) = serve(Box::new(|_, _, _| {
        Reply {
        status: 403,
        headers: vec![
            ("x-ratelimit-limit".into(), "60".into()),
            ("x-ratelimit-remaining".into(), "0".into()),
            ("x-ratelimit-reset".into(), "4102444800".into()),
        ],
        body: br#"{"message":"API rate limit exceeded for 127.0.0.1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}"#.to_vec(),
    }
    }));
    let o = bin()
        .args(["triage", "--github-issue", "example/rocm-app#42", "--api-url", &base])
        .output()
        .unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("rate limit exhausted (limit 60)"), "{out}");
    assert!(out.contains("resets at 4102444800"), "{out}");
    assert!(out.contains("GITHUB_TOKEN"), "{out}");
}

#[test]
fn github_secondary_rate_limit_is_waited_out_once() {
    let (base, seen) = serve(Box::new(|_, path, n| {
        if n == 1 {
            return Reply {
                status: 403,
                headers: vec![("retry-after".into(), "1".into())],
                body: br#"{"message":"You have exceeded a secondary rate limit."}"#.to_vec(),
            };
        }
        if path.contains("/comments") {
            ok(b"[]".to_vec(), vec![])
        } else {
            ok(fixture("issue.json"), vec![])
        }
    }));
    let o = bin()
        .args([
            "triage",
            "--github-issue",
            "example/rocm-app#42",
            "--api-url",
            &base,
            "--facts",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(seen.lock().unwrap().len(), 3, "retried once, then issue + comments");
    let o = bin()
        .args(["triage", "--github-issue", "not-an-issue", "--api-url", &base])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("expected OWNER/REPO#N"));
}

#[test]
fn github_not_found_is_an_input_error() {
    let (base, _) = thread_server();
    let o = bin()
        .args(["triage", "--github-issue", "example/rocm-app#7", "--api-url", &base])
        .output()
        .unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("HTTP 404 Not Found: Not Found"), "{out}");
}

// ------------------------------------------------------------------ mutation run

/// A deterministic mutation run over the corpus and the GitHub fixtures (the cargo-fuzz target
/// `fuzz/fuzz_targets/triage_readers.rs` explores further): no input may panic a reader, the
/// facts builder, the rules or a renderer.
#[test]
fn mutated_pastes_never_panic() {
    let m = Matrix::embedded();
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/triage/corpus");
    for e in std::fs::read_dir(corpus).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "txt") {
            seeds.push(std::fs::read(p).unwrap());
        }
    }
    seeds.push(NAVI32_OVERRIDE.as_bytes().to_vec());
    let tokens: &[&[u8]] = &[
        b"\n",
        b"```\n",
        b"Name:",
        b"Agent 2\n",
        b"gfx",
        b"gfx11002",
        b"0x",
        b"(0x747e)",
        b":",
        b"=",
        b"GPU[",
        b"]",
        b"|",
        b"\"",
        b"map[",
        b"KB",
        b"M of GTT memory ready",
        b"\xff",
        b"\0",
        b"\xc3",
        b"\r",
        b"\x1b[",
        b">>> ",
        b"$ ",
        b"Command line: ",
        b"amdgpu.gttsize=",
        b"gfx_target_version ",
        b"total=\"",
        b"Version:",
    ];
    // the seeds split over the machine's cores (60 mutations of each of 600+ pastes took 9
    // minutes on one core of a debug build), each share with its own deterministic mutator
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let share = seeds.len().div_ceil(cores);
    let ran: usize = std::thread::scope(|s| {
        let workers: Vec<_> = seeds
            .chunks(share)
            .enumerate()
            .map(|(i, chunk)| {
                s.spawn(move || {
                    let mut mutator = support::Mutator::new(0x2545_f491_4f6c_dd1d ^ i as u64);
                    let mut ran = 0;
                    for seed in chunk {
                        for _ in 0..60 {
                            let d = mutator.mutate(seed, tokens, 6, 32);
                            let t = triage::triage(
                                &[Input {
                                    name: "m".into(),
                                    text: String::from_utf8_lossy(&d).into_owned(),
                                }],
                                m,
                            );
                            let report = rocmcheck::commands::triage::evaluate(
                                &t,
                                &[],
                                m,
                                &rocmcheck::policy::Policy::default(),
                            );
                            let mut sink = Vec::new();
                            rocmcheck::report::renderer(rocmcheck::report::Format::Markdown, false)
                                .render(&report, &mut sink)
                                .unwrap();
                            ran += 1;
                        }
                    }
                    ran
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a mutated paste panicked"))
            .sum()
    });
    assert!(ran >= 60 * 40, "ran {ran}");
}

// ---- targets inferred from a product name (matrix `marketing:`) ------------------------------

/// An old collect_env names the GPU without `(gfx…)`: the target comes from the matrix's exact
/// product names, marked as inferred in the facts, the provenance, the report and what to
/// paste next.
#[test]
fn a_product_name_alone_gives_an_inferred_target() {
    let paste = "PyTorch version: 2.1.2+rocm5.6\nROCM used to build PyTorch: 5.6.31061-8c743ae5d\nGPU models and configuration: AMD Radeon RX 6900 XT\nHIP runtime version: 5.6.31061\n";
    let t = read("p.txt", paste);
    assert_eq!(t.summary.gfx, ["gfx1030"]);
    assert_eq!(t.summary.gfx_from_name, ["gfx1030"]);
    let target = &t.facts.targets[0];
    assert_eq!(target.value.reason, rocmcheck::facts::TargetReason::ProductName);
    let p = t
        .provenance
        .iter()
        .find(|p| p.fact == "gpu[0].gfx")
        .expect("the inferred gfx has provenance");
    assert_eq!((p.value.as_str(), p.line), ("gfx1030", 3));
    assert!(
        p.inferred
            .as_deref()
            .is_some_and(|s| s.contains("AMD Radeon RX 6900 XT")),
        "{p:?}"
    );
    assert!(
        t.notes
            .iter()
            .any(|(n, _)| n.contains("inferred from the product name"))
    );
    assert!(
        t.missing
            .iter()
            .any(|m| m.what.contains("inferred") && m.command.contains("rocminfo"))
    );
    // `--facts`, human and markdown say so
    let o = run_stdin(&["triage", "--facts", "-"], paste);
    let out = text(&o);
    assert!(
        out.contains("\"gfx_from_name\"") && out.contains("from the product name"),
        "{out}"
    );
    for fmt in ["human", "markdown"] {
        let o = run_stdin(&["triage", "--format", fmt, "-"], paste);
        let out = text(&o);
        // (the Markdown reply turns inline backticks into quotes)
        assert!(
            out.contains("gfx1030 (from the product name; confirm with `rocminfo`)")
                || out.contains("gfx1030 (from the product name; confirm with 'rocminfo')"),
            "{fmt}: {out}"
        );
    }
}

/// Generic names (iGPUs), unknown cards and targets outside the matrix stay unknown.
#[test]
fn generic_or_unknown_product_names_are_not_guessed() {
    for paste in [
        "GPU models and configuration: AMD Radeon Graphics\nPyTorch version: 2.4.0+rocm6.1\n",
        "GPU models and configuration: AMD Radeon(TM) Graphics\nPyTorch version: 2.4.0+rocm6.1\n",
        "GPU[0]\t\t: Card series: \t\tFiji [Radeon R9 FURY / NANO Series]\nGPU[0]\t\t: Card model: \t\tRadeon R9 FURY X\n",
        "GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Radeon Graphics\n        VENDOR_ID: 0x1002\n",
    ] {
        let t = read("p.txt", paste);
        assert!(t.summary.gfx.is_empty(), "{paste}: {:?}", t.summary.gfx);
        assert!(t.facts.targets.is_empty());
        assert!(t.missing.iter().any(|m| m.what == "no gfx target seen"), "{paste}");
    }
}

/// A gfx printed in the paste always wins over the name; a name of another target is reported,
/// never used to "correct" it (the override trap: a Navi 32 card shown as gfx1100).
#[test]
fn a_printed_gfx_wins_and_a_disagreeing_name_is_only_reported() {
    let paste = "GPU models and configuration: AMD Radeon RX 7800 XT (gfx1100)\nPyTorch version: 2.3.0+rocm6.0\n";
    let t = read("p.txt", paste);
    assert_eq!(t.summary.gfx, ["gfx1100"]);
    assert!(t.summary.gfx_from_name.is_empty());
    assert_eq!(
        t.facts.targets[0].value.reason,
        rocmcheck::facts::TargetReason::Detected
    );
    let note = t
        .notes
        .iter()
        .find(|(n, _)| n.contains("gfx1101 product"))
        .expect("the disagreement is reported");
    assert!(
        note.0.contains("may be in effect") && note.0.contains("keeps gfx1100"),
        "{}",
        note.0
    );
    let with_env = format!("{paste}HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
    let t = read("p.txt", &with_env);
    assert_eq!(t.summary.gfx, ["gfx1100"]);
    assert!(
        t.notes.iter().any(|(n, _)| n.contains("(set in the paste)")),
        "{:?}",
        t.notes
    );
    // agreeing name and gfx: no note
    let t = read(
        "p.txt",
        "GPU models and configuration: AMD Radeon RX 6900 XT (gfx1030)\n",
    );
    assert!(!t.notes.iter().any(|(n, _)| n.contains("product")), "{:?}", t.notes);
}

/// rocm-smi series, amd-smi market names and torch's get_device_name print are read too; a
/// rocminfo agent cut before its `Name:` stays unknown even with a known marketing name.
#[test]
fn product_names_from_smi_tools_and_torch() {
    let t = read(
        "p.txt",
        "GPU[0]\t\t: Card series: \t\tNavi 21 [Radeon RX 6800/6800 XT / 6900 XT]\nGPU[0]\t\t: Card vendor: \t\tAdvanced Micro Devices, Inc. [AMD/ATI]\n",
    );
    assert_eq!(t.summary.gfx_from_name, ["gfx1030"]);
    let t = read(
        "p.txt",
        "GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Instinct MI210\n        VENDOR_ID: 0x1002\n",
    );
    assert_eq!(t.summary.gfx_from_name, ["gfx90a"]);
    let t = read("p.txt", ">>> torch.cuda.get_device_name(0)\n'AMD Radeon RX 7900 XTX'\n");
    assert_eq!(t.summary.gfx_from_name, ["gfx1100"]);
    assert_eq!(t.provenance.iter().find(|p| p.fact == "gpu[0].gfx").unwrap().line, 2);
    let t = read(
        "p.txt",
        "[turn 0 continued]\n  Marketing Name:          AMD Radeon RX 7800 XT\n  Device Type:             GPU\n",
    );
    assert!(t.summary.gfx.is_empty(), "{:?}", t.summary.gfx);
}

/// A reply that quotes a rocminfo with `> ` (the Navi 32 override trap inside a block quote):
/// the quote markers are stripped, the chip id settles the hardware target, and the product
/// name does not change anything.
#[test]
fn a_block_quoted_navi32_override_is_read_through_the_quote() {
    let paste = "> *******\n> Agent 2\n> *******\n>   Name:                    gfx1100\n>   Marketing Name:          AMD Radeon RX 7800 XT\n>   Device Type:             GPU\n>   Chip ID:                 29822(0x747e)\n";
    let t = read("p.txt", paste);
    assert_eq!(t.summary.gfx, ["gfx1101"]);
    assert!(t.summary.gfx_from_name.is_empty());
    assert_eq!(t.facts.targets[0].value.effective.as_deref(), Some("gfx1100"));
    assert!(
        t.notes
            .iter()
            .any(|(n, _)| n.contains("HSA_OVERRIDE_GFX_VERSION=11.0.0")),
        "{:?}",
        t.notes
    );
    assert!(!t.notes.iter().any(|(n, _)| n.contains("product")), "{:?}", t.notes);
}

/// `--github-issue` that cannot be fetched (here: a refused connection on 127.0.0.1, as offline)
/// is an error on stderr with its cause, exit 2, and no report (not a Markdown reply saying
/// "(no input)" and that no rule matches).
#[test]
fn github_issue_that_cannot_be_fetched_is_an_error_with_its_cause_on_stderr() {
    for format in ["human", "markdown", "json"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
            .args([
                "triage",
                "--github-issue",
                "ROCm/ROCm#1",
                "--api-url",
                "http://127.0.0.1:1",
            ])
            .args(["--format", format])
            .env_remove("GITHUB_TOKEN")
            .output()
            .unwrap();
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{format}: {out}{err}");
        assert_eq!(out, "", "{format}: nothing on stdout");
        assert!(
            err.starts_with("error: --github-issue: http://127.0.0.1:1/repos/ROCm/ROCm/issues/1: request failed:"),
            "{format}: {err}"
        );
        assert!(
            err.contains("Connection refused"),
            "{format}: the cause is named: {err}"
        );
    }
}

/// The Core SDK era in a paste: collect_env's `[pip3]` lines of AMD's split torch (the line shape
/// of ROCm/pytorch#3518, a real collect_env; the gfx942-only selection is our modelled mistake)
/// beside a rocminfo that shows a gfx1100: the missing device package is an error, at its line.
#[test]
fn split_torch_device_packages_against_the_gpu() {
    let paste = "\
  Name:                    gfx1100
  Marketing Name:          Radeon RX 7900 XTX
Versions of relevant libraries:
[pip3] amd-torch-device-gfx942==2.12.0+rocm7.14.0
[pip3] numpy==2.2.6
[pip3] torch==2.12.0+rocm7.14.0
";
    let t = read("paste.txt", paste);
    let pip: Vec<(&str, Option<&str>)> = t
        .facts
        .pip
        .iter()
        .map(|p| (p.value.name.as_str(), p.value.version.as_deref()))
        .collect();
    // numpy is not a package the matrix knows: not a ROCm fact
    assert_eq!(pip, [("amd-torch-device-gfx942", Some("2.12.0+rocm7.14.0"))]);
    let findings = rules::run(Scope::Env, &t.facts, Matrix::embedded());
    let f = findings
        .iter()
        .find(|f| f.code == "RC110")
        .unwrap_or_else(|| panic!("no RC110: {findings:?}"));
    assert_eq!(f.severity, rocmcheck::finding::Severity::Error);
    assert!(f.title.contains("gfx1100"), "{}", f.title);
    assert!(
        matches!(&f.origin, rocmcheck::facts::Origin::File { line: 4, .. }),
        "{:?}",
        f.origin
    );
    // the same list with the GPU's own package: no finding
    let t = read("paste.txt", &paste.replace("gfx942==", "gfx1100=="));
    assert!(!codes(&t).contains(&"RC110"));
}

/// `rocm-sdk` tool output (shapes per ROCm/TheRock rocm_sdk/__main__.py @16adc4d8) and a Core SDK
/// path (AMD's transition guide: /opt/rocm/core-10.0) in one paste: two ROCm user spaces, one
/// installed from AMD's packages and one from pip, each with where it came from.
#[test]
fn rocm_sdk_output_and_core_sdk_paths() {
    let paste = "\
$ ls /opt/rocm/core-10.0/lib/libamdhip64.so.7
/opt/rocm/core-10.0/lib/libamdhip64.so.7
$ rocm-sdk version
7.14.0
$ rocm-sdk targets
gfx1100;gfx1101;gfx1102;gfx1103;gfx1151;gfx1200;gfx1201
$ rocm-sdk path --root
/home/u/.venv/lib/python3.12/site-packages/_rocm_sdk_devel
";
    let t = read("p", paste);
    use rocmcheck::facts::RocmFrom;
    let sys = t
        .facts
        .rocm
        .iter()
        .find(|r| r.value.from == RocmFrom::Installed)
        .expect("the Core SDK install");
    assert_eq!(sys.value.version, "10.0");
    assert_eq!(sys.value.path.as_deref(), Some("/opt/rocm/core-10.0"));
    let pip = t
        .facts
        .rocm
        .iter()
        .find(|r| r.value.from == RocmFrom::PipWheels)
        .expect("the pip ROCm");
    assert_eq!(pip.value.version, "7.14.0");
    assert_eq!(pip.value.targets.len(), 7);
    assert_eq!(
        pip.value.path.as_deref(),
        Some("/home/u/.venv/lib/python3.12/site-packages/_rocm_sdk_devel")
    );
    assert!(
        matches!(&pip.origin, rocmcheck::facts::Origin::File { line: 4, .. }),
        "{:?}",
        pip.origin
    );
    assert!(codes(&t).contains(&"RC111"), "{:?}", codes(&t));
    assert_eq!(t.summary.rocm.as_deref(), Some("10.0"));
    assert!(
        t.summary.formats.iter().any(|f| f == "rocm_sdk"),
        "{:?}",
        t.summary.formats
    );
}

/// pip's resolver log of a pytorch.org rocm7.14 torch (the line shape of pytorch/pytorch#193979):
/// the requirement that pulled the device packages (`rocm[device-all,libraries]`) is read too, so
/// a log that shows only some device packages is not taken for a partial selection.
#[test]
fn pip_resolver_log_with_device_all() {
    let paste = "\
  Name:                    gfx1100
Collecting rocm-sdk-device-gfx1011==7.14.0 (from rocm[device-all,libraries]==7.14.*->torch)
  Downloading rocm_sdk_device_gfx1011-7.14.0-py3-none-linux_x86_64.whl (63.2 MB)
";
    let t = read("p", paste);
    let rocm = t
        .facts
        .pip
        .iter()
        .find(|p| p.value.name == "rocm")
        .expect("rocm selector");
    assert_eq!(rocm.value.extras, ["device-all", "libraries"]);
    assert!(t.facts.pip.iter().any(|p| p.value.name == "rocm-sdk-device-gfx1011"));
    assert!(!codes(&t).contains(&"RC110"), "{:?}", codes(&t));
}

// ------------------------------------------------------------------ untrusted text
//
// The triage action posts `--format markdown` as a comment on an issue anyone can write. These
// tests paste hostile text and read the reply as GitHub would render it: secrets never come
// back, pasted text never becomes a mention, link, image or HTML, the reply fits one comment,
// and a huge thread is read within a bound. Threat model: SECURITY.md.

/// Secrets as `env`, `printenv` or a config paste shows them. The values are made up, in the
/// documented shapes (GitHub `ghp_`/`github_pat_`, Hugging Face `hf_`, OpenAI `sk-`, the AWS
/// documentation's example key pair, a Slack `xoxb-`).
const SECRETS: &[&str] = &[
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "xoxb-123456789012-abcdefghijklmn",
    "hunter2-database-password",
];

/// A collect_env + `env` paste that carries every secret, in the fields rocmcheck echoes (GPU
/// name, OS, NVIDIA line, PyTorch version, an environment variable) and as a plain env dump.
fn secret_paste() -> String {
    let [hf, ghp, pat, sk, akia, aws, slack, pw] = SECRETS else {
        unreachable!()
    };
    format!(
        "PyTorch version: 2.4.0+rocm6.1 {ghp}\n\
         ROCM used to build PyTorch: 6.1.40091-a8dbc0c19\n\
         OS: Ubuntu 22.04.4 LTS {sk} (x86_64)\n\
         GPU models and configuration: AMD Radeon RX 6800 XT {hf} {akia} (gfx1030)\n\
         Nvidia driver version: 550.90.07 {pat} {aws}\n\
         HIP runtime version: 6.1.40091\n\
         $ env\n\
         HF_TOKEN={hf}\n\
         GITHUB_TOKEN={ghp}\n\
         GH_PAT={pat}\n\
         OPENAI_API_KEY={sk}\n\
         AWS_ACCESS_KEY_ID={akia}\n\
         AWS_SECRET_ACCESS_KEY={aws}\n\
         SLACK_BOT_TOKEN={slack}\n\
         DB_PASSWORD={pw}\n\
         HSA_OVERRIDE_GFX_VERSION=11.0.0 {hf}\n\
         PYTORCH_ROCM_ARCH={ghp}\n\
         ROCR_VISIBLE_DEVICES={aws}\n"
    )
}

#[test]
fn a_reply_never_echoes_pasted_secrets() {
    let o = run_stdin(&["triage", "-", "--format", "markdown"], &secret_paste());
    let md = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(1), "the paste has an error finding: {md}");
    // the reply is a real answer: the override finding and the pasted GPU are there
    assert!(md.contains("RC202") && md.contains("RX 6800 XT"), "{md}");
    assert!(md.contains("redacted"), "{md}");
    for s in SECRETS {
        // the whole secret, and any 12-character piece of its random part
        assert!(!md.contains(s), "{s} leaked:\n{md}");
        let tail: String = s.chars().skip(s.len().saturating_sub(12)).collect();
        assert!(!md.contains(&tail), "a piece of {s} ({tail}) leaked:\n{md}");
    }
}

/// The Markdown text outside code spans (where GitHub never links, mentions or renders HTML).
fn outside_code(md: &str) -> String {
    md.lines()
        .map(|l| {
            l.split('`')
                .enumerate()
                .filter(|(i, _)| i % 2 == 0)
                .map(|(_, p)| p)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `t` has `c` without a backslash before it.
fn unescaped(t: &str, c: char) -> Vec<String> {
    let b: Vec<char> = t.chars().collect();
    (0..b.len())
        .filter(|&i| b[i] == c && (i == 0 || b[i - 1] != '\\'))
        .map(|i| b[i.saturating_sub(20)..(i + 20).min(b.len())].iter().collect())
        .collect()
}

#[test]
fn pasted_text_makes_no_mention_link_image_or_html() {
    let hostile = "@octocat @ROCm/maintainers [click](https://evil.example/a) ![img](https://evil.example/p.png) \
                   <img src=x onerror=alert(1)> <script>alert(1)</script> <a href=\"https://evil.example\">x</a> \
                   https://evil.example/bare www.evil.example ROCm/ROCm#1 #4242 <https://evil.example/auto> \
                   [ref]: https://evil.example/r **bold** $x^2$ &lt;b&gt; `code` ``";
    let paste = format!(
        "PyTorch version: 2.4.0+rocm6.1 {hostile}\n\
         ROCM used to build PyTorch: 6.1.40091-a8dbc0c19\n\
         OS: Ubuntu 22.04.4 LTS {hostile}\n\
         GPU models and configuration: AMD Radeon RX 6800 XT {hostile} (gfx1030)\n\
         Nvidia driver version: 550.90.07 {hostile}\n\
         HSA_OVERRIDE_GFX_VERSION=11.0.0\n\
         ROCR_VISIBLE_DEVICES=@everyone\n"
    );
    let o = run_stdin(&["triage", "-", "--format", "markdown"], &paste);
    let md = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(md.contains("RC202") && md.contains("RX 6800 XT"), "{md}");
    let prose = outside_code(&md);
    // the only HTML is our own: the marker, the details fold, the footer
    let ours = [
        "<!-- rocmcheck-triage -->",
        "<details>",
        "<summary>",
        "</summary>",
        "</details>",
        "<sub>",
        "</sub>",
    ];
    // the matrix's own sources (`- see:` lines) are ours, not the paste's
    let mut rest = prose
        .lines()
        .filter(|l| !l.trim_start().starts_with("- see: "))
        .collect::<Vec<_>>()
        .join("\n");
    for t in ours {
        rest = rest.replace(t, "");
    }
    for c in ['<', '>', '@', '[', ']', '$', '&'] {
        let hits = unescaped(&rest, c);
        assert!(hits.is_empty(), "unescaped {c:?} outside code spans: {hits:?}\n{md}");
    }
    // no pasted URL, reference or @name is live text (they are all inside code spans)
    for live in ["evil.example", "https://", "www.", "#4242", "ROCm#1"] {
        assert!(!rest.contains(live), "{live} outside code spans:\n{md}");
    }
    // and the pasted text is still there to read, literally
    assert!(md.contains("`@octocat`") && md.contains("=@everyone`"), "{md}");
    assert!(md.contains("`[click](https://evil.example/a)`"), "{md}");
    // code spans close on the line they open (a stray backtick cannot open one that swallows ours)
    for l in md.lines() {
        assert_eq!(l.matches('`').count() % 2, 0, "unbalanced backticks: {l}");
    }
}

#[test]
fn a_huge_paste_fits_one_comment_and_keeps_the_causes() {
    // 1,500 ignored-parameter notes (each a pasted line), a 100 KB GPU name, a wrong override
    let mut p = format!(
        "PyTorch version: 2.4.0+rocm6.1\n\
         ROCM used to build PyTorch: 6.1.40091-a8dbc0c19\n\
         GPU models and configuration: AMD Radeon RX 6800 XT {} (gfx1030)\n\
         HSA_OVERRIDE_GFX_VERSION=11.0.0\n",
        "A".repeat(100_000)
    );
    for i in 0..1500 {
        p.push_str(&format!(
            "[    {i}.000000] amdgpu: unknown parameter 'gtt_size{i}' ignored\n"
        ));
    }
    let o = run_stdin(&["triage", "-", "--format", "markdown"], &p);
    let md = String::from_utf8_lossy(&o.stdout).to_string();
    // GitHub's limit on a comment body: 65,536 characters
    assert!(md.chars().count() < 65_536, "{} characters", md.chars().count());
    assert!(md.starts_with("<!-- rocmcheck-triage -->\n"), "{}", &md[..200]);
    assert!(md.contains("RC202"), "the causes survive the cut:\n{md}");
    assert!(md.contains("more notes"), "says what it left out:\n{md}");
    assert!(md.trim_end().ends_with("</sub>"), "the footer stays");
    // the full report is still there for whoever runs it locally
    let o = run_stdin(&["triage", "-", "--format", "json"], &p);
    assert!(String::from_utf8_lossy(&o.stdout).contains("gtt_size1499"));
}

/// A thread of endless 100-comment pages: rocmcheck stops at its page bound, says so on stderr
/// and in the reply, and the request count proves the bound.
#[test]
fn a_thread_of_thousands_of_comments_is_read_within_a_bound() {
    let (base, seen) = serve(Box::new(|base, path, _| {
        let p = "/repos/example/busy/issues/9";
        if path == p {
            return ok(
                br#"{"number":9,"body":"PyTorch version: 2.4.0+rocm6.1\nGPU models and configuration: AMD Radeon RX 6800 XT (gfx1030)\n"}"#.to_vec(),
                vec![],
            );
        }
        let page: usize = path.rsplit_once("page=").and_then(|(_, n)| n.parse().ok()).unwrap_or(1);
        let comments: Vec<serde_json::Value> = (0..100)
            .map(|i| {
                let id = page * 1000 + i;
                serde_json::json!({"id": id, "body": format!("+1 same here ({id})")})
            })
            .collect();
        let next = format!("<{base}{p}/comments?per_page=100&page={}>; rel=\"next\"", page + 1);
        ok(serde_json::to_vec(&comments).unwrap(), vec![("Link".into(), next)])
    }));
    let o = bin()
        .args([
            "triage",
            "--github-issue",
            "example/busy#9",
            "--api-url",
            &base,
            "--format",
            "markdown",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let pages = rocmcheck::github::MAX_PAGES;
    assert_eq!(seen.lock().unwrap().len(), 1 + pages, "issue + {pages} comment pages");
    let said = format!("first {} comments", pages * 100);
    assert!(err.contains("warning") && err.contains(&said), "{err}");
    assert!(out.contains("**Note**") && out.contains(&said), "{out}");
    assert!(out.contains("later comments were not"), "{out}");
}

/// Big comment pages: the byte bound stops the read before the page bound does.
#[test]
fn a_thread_of_huge_comments_is_read_within_a_byte_bound() {
    let (base, seen) = serve(Box::new(|base, path, _| {
        let p = "/repos/example/big/issues/3";
        if path == p {
            return ok(br#"{"number":3,"body":"torch==2.5.1+rocm6.2\n"}"#.to_vec(), vec![]);
        }
        let page: usize = path.rsplit_once("page=").and_then(|(_, n)| n.parse().ok()).unwrap_or(1);
        // one comment of 4 MiB per page
        let body = serde_json::json!([{"id": page, "body": "x".repeat(4 << 20)}]);
        let next = format!("<{base}{p}/comments?per_page=100&page={}>; rel=\"next\"", page + 1);
        ok(serde_json::to_vec(&body).unwrap(), vec![("Link".into(), next)])
    }));
    let o = bin()
        .args(["triage", "--github-issue", "example/big#3", "--api-url", &base])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let requests = seen.lock().unwrap().len();
    let max_pages = (rocmcheck::github::MAX_BYTES >> 22) + 1;
    assert!(
        requests <= 1 + max_pages && requests < 1 + rocmcheck::github::MAX_PAGES,
        "{requests} requests"
    );
    assert!(err.contains("later comments were not") && err.contains("MiB"), "{err}");
}

/// A `Link: rel="next"` to another host is not followed: the token never leaves the API's origin.
#[test]
fn a_next_link_to_another_host_is_not_followed() {
    let (other, other_seen) = serve(Box::new(|_, _, _| ok(b"[]".to_vec(), vec![])));
    let other2 = other.clone();
    let (base, _) = serve(Box::new(move |_, path, _| {
        let p = "/repos/example/x/issues/1";
        if path == p {
            ok(br#"{"number":1,"body":"hi"}"#.to_vec(), vec![])
        } else {
            let next = format!("<{other2}{p}/comments?per_page=100&page=2>; rel=\"next\"");
            ok(b"[]".to_vec(), vec![("Link".into(), next)])
        }
    }));
    let o = bin()
        .args(["triage", "--github-issue", "example/x#1", "--api-url", &base])
        .env("GITHUB_TOKEN", "secret-token-xyz")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("another host"), "{}", text(&o));
    assert!(other_seen.lock().unwrap().is_empty(), "the other host was asked");
}

/// An input over the size limit is refused before it is read, with a message that
/// names the limit and what to do (exit 2). The file is sparse: no 64 MiB are written.
#[test]
fn an_input_over_the_limit_is_refused_with_the_limit_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("journal.txt");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len((64 << 20) + 1).unwrap();
    let o = bin().args(["triage", p.to_str().unwrap()]).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("limit of 64 MiB per input (MAX_PASTE)"), "{t}");
    assert!(t.contains("split it"), "{t}");
    assert!(t.contains("journal.txt"), "{t}");
}

/// The free-form shapes end to end: a product name in a free-form print settles the target, a
/// HIP log's missing kernels and a WSL collect_env without a GPU each give their finding.
#[test]
fn free_form_prints_hip_logs_and_collect_env_without_gpu() {
    let m = Matrix::embedded();
    let run = |text: &str| {
        let t = triage::triage(
            &[Input {
                name: "paste.txt".into(),
                text: text.into(),
            }],
            m,
        );
        let codes: Vec<&str> = rules::run(Scope::Env, &t.facts, m).iter().map(|f| f.code).collect();
        (t, codes)
    };
    // an RX 6750 XT named by a script, with a torch rocm5.7 wheel: the gfx rules run (RC102)
    let (t, codes) = run("torch 2.3.1+rocm5.7\nDevice: AMD Radeon RX 6750 XT\n");
    assert_eq!(t.summary.gfx, ["gfx1031"]);
    assert_eq!(t.summary.gfx_from_name, ["gfx1031"]);
    assert!(codes.contains(&"RC102"), "{codes:?}");
    let p = t.provenance.iter().find(|p| p.fact == "gpu[0].gfx").unwrap();
    assert_eq!(p.line, 2);
    assert!(p.inferred.as_deref().unwrap_or("").contains("RX 6750 XT"));
    // rocBLAS without kernels for the GPU
    let (t, codes) = run(
        "rocBLAS error: Cannot read /opt/rocm-6.2.1/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1031\n",
    );
    assert_eq!(t.summary.gfx, ["gfx1031"]);
    assert_eq!(t.summary.rocm.as_deref(), Some("6.2.1"));
    let r = t.provenance.iter().find(|p| p.fact == "rocm").unwrap();
    assert!(r.inferred.is_some(), "a path is not a command's output");
    assert!(codes.contains(&"RC316"), "{codes:?}");
    // collect_env's "No CUDA" is neither a GPU nor an NVIDIA driver
    let (t, codes) = run(
        "PyTorch version: 2.4.1+rocm6.1\nROCM used to build PyTorch: 6.1.40091-a8dbc0c19\nPython platform: Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\nIs CUDA available: False\nGPU models and configuration: No CUDA\nNvidia driver version: No CUDA\n",
    );
    assert!(t.summary.gfx.is_empty() && !t.summary.nvidia);
    assert_eq!(t.summary.torch_gpu_available, Some(false));
    assert!(codes.contains(&"RC313") && !codes.contains(&"RC304"), "{codes:?}");
    // a command's output outranks prose: the version file wins over a path in a sentence
    let (t, _) = run("I looked in /opt/rocm-6.0.1/lib/\n$ cat /opt/rocm/.info/version\n6.2.4-120\n");
    assert_eq!(t.summary.rocm.as_deref(), Some("6.2.4"));
    // two readers that disagree on the one GPU's target are reported
    let (t, _) = run(
        "Name: gfx1201\nMarketing Name: AMD Radeon RX 9060 XT\nvulkaninfo | grep deviceName\ndeviceName = AMD Radeon RX 9060 XT (RADV GFX1200)\n",
    );
    assert!(
        t.notes
            .iter()
            .any(|(n, _)| n.contains("gfx1201") && n.contains("gfx1200")),
        "{:?}",
        t.notes
    );
}

/// The platform a paste shows decides which advice applies (shapes of the 2026 pastes in
/// cases 79–87 of `tests/triage/corpus`; values ours): Windows gets Windows causes and Windows commands,
/// never /dev/kfd, groups or kernel parameters; macOS gets no "torch sees no GPU" (ROCm does
/// not run there); WSL gets the matrix's sourced WSL fact; Linux keeps the Linux causes.
#[test]
fn platform_decides_which_advice_applies() {
    let m = Matrix::embedded();
    let why = |t: &triage::Triage, code: &str| {
        rules::run(Scope::Env, &t.facts, m)
            .into_iter()
            .find(|f| f.code == code)
            .map(|f| f.why)
    };
    let no_device = "checkHipErrors() HIP API error = 0100 \"no ROCm-capable device is detected\"\n";

    // Windows: a template answer and a DLL name
    let t = read(
        "w",
        &format!("{no_device}\n### Operating System\n\nWindows 11\n\nHIP runtime: amdhip64_7.dll\n"),
    );
    assert_eq!(t.summary.platform.as_deref(), Some("windows"));
    assert_eq!(
        t.facts.platform.as_ref().unwrap().value,
        rocmcheck::facts::Platform::Windows
    );
    let w = why(&t, "RC313").expect("RC313 on Windows");
    assert!(
        w.contains("amdhip64") && !w.contains("/dev/kfd") && !w.contains("id -nG"),
        "{w}"
    );
    let cmds: Vec<&str> = t.missing.iter().map(|m| m.command.as_str()).collect();
    assert!(cmds.iter().any(|c| c.starts_with("hipInfo")), "{cmds:?}");
    assert!(
        !cmds
            .iter()
            .any(|c| c.contains("uname") || c.contains("/opt/rocm") || c.contains("rocminfo")),
        "{cmds:?}"
    );
    assert!(t.notes.iter().any(|(n, _)| n.contains("from Windows")), "{:?}", t.notes);

    // the same kernel log: a Linux finding on Linux, none where the paste says Windows
    let klog = "[    3.646006] amdgpu 0000:c6:00.0: amdgpu: [drm] Configuring gttsize via module parameter is deprecated, please use ttm.pages_limit\n[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.14.0 ro amdgpu.gttsize=122880\n";
    let lin = read("l", klog);
    assert!(codes(&lin).contains(&"RC306"), "{:?}", codes(&lin));
    let win = read("w", &format!("- OS: Windows 11 Pro\n{klog}"));
    assert!(!codes(&win).contains(&"RC306"), "{:?}", codes(&win));
    assert!(win.facts.kernel.is_none());

    // macOS: torch without a GPU is expected there; the matrix's macOS fact is the note
    let mac = read(
        "m",
        "### Verified result (macOS, Apple Silicon)\ntorch.cuda.is_available(): False\n",
    );
    assert_eq!(mac.summary.platform.as_deref(), Some("macos"));
    assert_eq!(mac.summary.torch_gpu_available, Some(false));
    assert!(!codes(&mac).contains(&"RC313"), "{:?}", codes(&mac));
    assert!(mac.missing.is_empty(), "{:?}", mac.missing);
    let macos_fact = m.distribution.platforms.as_ref().unwrap().macos.trim().to_string();
    assert!(
        mac.notes.iter().any(|(n, _)| n.contains(&macos_fact)),
        "{:?}",
        mac.notes
    );

    // WSL: the WSL cause names the matrix's sourced WSL fact; /dev/kfd is marked as not WSL's
    let wsl = read(
        "s",
        "WSL environment detected.\nhsa api call failure at: ./rocminfo.cc:1324\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n",
    );
    assert_eq!(wsl.summary.platform.as_deref(), Some("wsl"));
    let w = why(&wsl, "RC313").expect("RC313 under WSL");
    let wsl_fact = m.distribution.platforms.as_ref().unwrap().wsl.trim().to_string();
    assert!(w.contains(&wsl_fact) && w.contains("not this one under WSL"), "{w}");

    // Linux: the Linux causes stay
    let l = read("l", &format!("{no_device}- OS: Ubuntu 24.04.2 LTS\n"));
    assert_eq!(l.summary.platform.as_deref(), Some("linux"));
    let w = why(&l, "RC313").expect("RC313 on Linux");
    assert!(w.contains("/dev/kfd") && !w.contains("amdhip64_N.dll"), "{w}");
}

/// keys.yaml is validated like every matrix file: an unknown fact, a key under two facts and a
/// file without sources are refused, each named with its file and line.
#[test]
fn keys_yaml_is_validated_like_every_matrix_file() {
    let base = rocmcheck::matrix::embedded::files();
    let with = |f: &dyn Fn(&str) -> String| {
        let mut files = base.clone();
        let k = files.get_mut("keys.yaml").unwrap();
        *k = f(k);
        rocmcheck::matrix::validate::load("m", &files)
            .err()
            .unwrap_or_default()
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    };
    assert!(with(&|k| k.to_string()).is_empty());
    let d = with(&|k| k.replacen("keys:\n", "keys:\n  vram:\n    - memory\n", 1));
    assert!(
        d.iter()
            .any(|x| x.contains("keys.yaml:13:") && x.contains("M006") && x.contains("unknown fact `vram`")),
        "{d:?}"
    );
    let d = with(&|k| k.replacen("  gpu:\n", "  gpu:\n    - Kernel\n", 1));
    assert!(
        d.iter()
            .any(|x| x.contains("M004") && x.contains("`kernel` is listed under")),
        "{d:?}"
    );
    let d = with(&|k| k.split("\nsources:").next().unwrap().to_string() + "\n");
    assert!(d.iter().any(|x| x.contains("M003")), "{d:?}");
}

#[test]
fn a_torch_version_without_its_build_tag_is_no_cpu_build() {
    // a typed `PyTorch: 2.10.0` (a ROCm image's torch, its local tag left out) says nothing of
    // the build; a `+cpu` or `+cu` tag does
    let t = read("typed.md", "- PyTorch: 2.10.0\n- GPU architecture: gfx1200\n");
    assert!(!codes(&t).contains(&"RC304"), "{:?}", codes(&t));
    let t = read("cpu.md", "- PyTorch: 2.10.0+cpu\n- GPU architecture: gfx1200\n");
    assert!(codes(&t).contains(&"RC304"), "{:?}", codes(&t));
    let t = read("cuda.md", "- PyTorch: 2.10.0+cu128\n- GPU architecture: gfx1200\n");
    assert!(codes(&t).contains(&"RC304"), "{:?}", codes(&t));
    // a source build's local tag (`+git<hash>`, as AMD's images print it) names no build kind
    let t = read("git.md", "- PyTorch: 2.9.0+gitab12cd3\n- GPU architecture: gfx1200\n");
    assert!(!codes(&t).contains(&"RC304"), "{:?}", codes(&t));
}

#[test]
fn a_cuda_build_run_through_zluda_is_no_wrong_wheel() {
    // a ZLUDA launcher's log (values ours, modelled on patientx-cfz/comfyui-rocm#107): the CUDA
    // build is what ZLUDA runs on the AMD GPU
    let log = "[INFO] pytorch version: 2.6.0+cu118\n[INFO] Device: cuda:0 AMD Radeon RX 6800 [ZLUDA] : native\n";
    let t = read("zluda.log", log);
    assert!(!codes(&t).contains(&"RC304"), "{:?}", codes(&t));
    // the same build without ZLUDA is reported
    let t = read("plain.log", &log.replace(" [ZLUDA]", ""));
    assert!(codes(&t).contains(&"RC304"), "{:?}", codes(&t));
}

#[test]
fn no_compatible_code_objects_is_missing_gpu_code() {
    // the HIP loader's wording (values ours): the target comes from the line
    let t = read(
        "fatbin.log",
        ":1:hip_fatbin.cpp           :687 : 1143 us:  No compatible code objects found for: gfx1036, value of HIP_FORCE_SPIRV_CODEOBJECT: 0\n",
    );
    assert!(codes(&t).contains(&"RC316"), "{:?}", codes(&t));
}

#[test]
fn pip_rocm_is_the_rocm_of_a_pip_log() {
    // a pip log of AMD's wheels (values ours): the core wheel's version is the ROCm, from pip;
    // the index folder in a URL is no TheRock build, and there is no second, system ROCm
    let log = "Looking in indexes: https://rocm.nightlies.amd.com/v2-staging/gfx120X-all/\n\
Collecting rocm[devel,libraries]\n\
  Downloading https://rocm.nightlies.amd.com/v2-staging/gfx120X-all/rocm-7.13.0a20260501.tar.gz (17 kB)\n\
Collecting rocm-sdk-core==7.13.0a20260501 (from rocm[devel,libraries])\n";
    let t = read("pip.log", log);
    let c = codes(&t);
    assert!(c.contains(&"RC106"), "a preview from pip: {c:?}");
    assert!(!c.contains(&"RC111"), "one ROCm, from pip: {c:?}");
}

#[test]
fn amd_windows_release_wheels_dev0_are_no_pre_release() {
    // a typed table of AMD's Windows release wheels (values ours; the `.dev0` naming is
    // AMD's, Comfy-Org/desktop#1564): a production release, not a nightly
    let t = read("env.md", "| **ROCm SDK** | 7.2.0.dev0 (pip wheels) |\n");
    assert!(!codes(&t).contains(&"RC106"), "{:?}", codes(&t));
    // a dated nightly of the same release is one
    let t = read("env.md", "| **ROCm SDK** | 7.2.0.dev20260110 (pip wheels) |\n");
    assert!(codes(&t).contains(&"RC106"), "{:?}", codes(&t));
}

#[test]
fn a_dev_builds_local_part_is_no_other_release() {
    // uv's swap of TheRock dev builds (values ours): the installed one is a 7.12 preview, and the
    // removed one is no second ROCm
    let log = "Installed 1 package in 30ms\n - rocm==7.12.0.dev0+aaaa1111\n + rocm==7.12.0.dev0+bbbb2222\n";
    let c = codes(&read("uv.log", log));
    assert!(c.contains(&"RC106"), "{c:?}");
    assert!(!c.contains(&"RC111"), "{c:?}");
}

/// RC308's fix names the discrete GPU's device index only where the paste lists the GPUs in the
/// order a tool enumerated them; GPUs named in text (a typed inventory, a table of kinds whose iGPU
/// `enumerates as cuda:0`) have no index, and a guessed one would select the iGPU. Values ours.
#[test]
fn igpu_fix_names_an_index_only_for_an_enumerated_list() {
    let typed = run_stdin(
        &["triage", "-"],
        "I have iGPU 780M + dGPU RX 7900 XTX and ROCm picks the wrong one\n",
    );
    let t = text(&typed);
    assert!(t.contains("RC308"), "{t}");
    assert!(t.contains("the GPUs are named, not enumerated in order"), "{t}");
    assert!(!t.contains("HIP_VISIBLE_DEVICES=0"), "{t}");
    let listed = run_stdin(
        &["triage", "-"],
        "ggml_cuda_init: found 2 ROCm devices:\n  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n  Device 1: AMD Radeon 780M Graphics, gfx1103 (0x1103), VMM: no, Wave Size: 32\n",
    );
    let t = text(&listed);
    assert!(t.contains("RC308"), "{t}");
    assert!(t.contains("`export HIP_VISIBLE_DEVICES=0`"), "{t}");
}

/// A visibility variable's index past the GPUs a paste names in a sentence is no RC307 (the
/// sentence is no count of the machine's GPUs); past the GPUs a tool enumerated, it is. Values
/// ours.
#[test]
fn visible_devices_range_only_against_an_enumerated_list() {
    let named = run_stdin(
        &["triage", "-"],
        "Hardware: 2x Radeon PRO W7800 (gfx1100)\nHIP_VISIBLE_DEVICES=0,1 python bench.py\n",
    );
    let t = text(&named);
    assert!(t.contains("Radeon PRO W7800") && !t.contains("2x Radeon"), "{t}");
    assert!(!t.contains("RC307"), "{t}");
    let listed = run_stdin(
        &["triage", "-"],
        "ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon PRO W7800, gfx1100 (0x1100), VMM: no, Wave Size: 32\nHIP_VISIBLE_DEVICES=0,1 python bench.py\n",
    );
    let t = text(&listed);
    assert!(t.contains("RC307"), "{t}");
}

/// An issue form's `ROCm Version` answered with the kernel driver's version that the same
/// paste's rocminfo prints (`ROCk module version … is loaded`) is no ROCm release: no ROCm fact,
/// no RC108 "not in the matrix". A ROCm answer that differs from it is kept. Values ours, shaped
/// like AMD's issue form with rocminfo's head.
#[test]
fn a_rocm_answer_that_is_the_driver_version_is_no_rocm() {
    let form = |rocm: &str| {
        format!(
            "### ROCm Version\n\n{rocm}\n\n### rocminfo\n\nROCk module version 6.14.9 is loaded\n=====================\nHSA System Attributes\n"
        )
    };
    let t = read("driver", &form("6.14.9"));
    assert!(t.facts.rocm.is_empty(), "{:?}", t.facts.rocm);
    assert!(!codes(&t).contains(&"RC108"));
    let t = read("release", &form("7.2.1"));
    let rocm: Vec<String> = t.facts.rocm.iter().map(|r| r.value.version.clone()).collect();
    assert_eq!(rocm, ["7.2.1"]);
}

/// amdgpu's `Dumping IP State` (its dump at a GPU job's timeout) is a hang where a log was cut
/// before the `ring … timeout` line (matrix/signatures.yaml `amdgpu-job-timeout-ip-dump`; values
/// ours); another driver's text with the same words is not.
#[test]
fn amdgpu_s_ip_state_dump_is_a_hang() {
    let t = read(
        "dump",
        "Mar 02 10:11:12 box kernel: amdgpu 0000:0a:00.0: amdgpu: Dumping IP State\n",
    );
    assert!(codes(&t).contains(&"RC315"), "{:?}", codes(&t));
    let t = read("other", "xe 0000:00:02.0: Dumping IP State\n");
    assert!(!codes(&t).contains(&"RC315"));
}
