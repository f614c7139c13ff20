//! Client for `scripts/bench-web-costs.sh`: sends requests one at a time, as a web
//! server does, so that the program under test can be measured per request by
//! instruments that do not depend on the machine's load (callgrind, `strace -c`, context
//! switches).
//!
//! ```text
//! web_costs prg LINES N EXPECT -- CMD ARGS…   # Apache's prg: protocol over pipes
//! web_costs http ADDR PATHS N EXPECT [PID]      # HTTP/1.1 keep-alive, one connection
//! ```
//!
//! `prg` starts `CMD` with its stdin and stdout on pipes and writes it N request lines
//! (the lines of LINES in turn), each only after the answer to the previous one has
//! come, as httpd does under its rewrite-map mutex. `http` sends N `GET` requests (the
//! paths of PATHS in turn, with the headers nginx's `proxy_pass` sends) on one
//! keep-alive connection to ADDR (`HOST:PORT` or `unix:PATH`), again one at a time.
//! Before the N requests, every line of LINES (or path of PATHS) is sent once, so that
//! the N requests find the store's blocks cached, as in a long run (`WEB_COSTS_WARM=0`:
//! not, for a server that was warmed up already).
//! Every answer must start with EXPECT (a prg answer line, or an HTTP status line such
//! as `HTTP/1.1 302`), or the run fails: a count on the wrong path measures nothing.
//!
//! Prints `ctxt VOLUNTARY INVOLUNTARY`: the context switches of all threads of the
//! program (`CMD`, or the server whose PID is given) during the N requests, from
//! `/proc/PID/task/*/status`. `prg` also prints, for diagnosis by hand (they depend on
//! the machine's load, and the script does not use them): `wall_ns`, the time per
//! request, and `cpu_ns … wait_ns …`, the program's time on a CPU and waiting for one
//! per request (`/proc/PID/task/*/schedstat`), with the client's own; with
//! `WEB_COSTS_THRASH=BYTES`, the client writes over that many bytes before each request,
//! as a web server's other work does between two lookups, so that the program finds
//! the caches cold (`taskset -c 1` on the client puts both on one CPU).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("prg") if args.len() >= 6 && args[4] == "--" => {
            prg(&args[1], args[2].parse().expect("N"), &args[3], &args[5..])
        }
        Some("http") if args.len() >= 5 => http(
            &args[1],
            &args[2],
            args[3].parse().expect("N"),
            &args[4],
            args.get(5).map(|p| p.parse().expect("PID")),
        ),
        _ => Err(
            "usage: web_costs prg LINES N EXPECT -- CMD ARGS… | http ADDR PATHS N EXPECT [PID]"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("web_costs: {e}");
            ExitCode::FAILURE
        }
    }
}

type Result<T> = std::result::Result<T, String>;

fn lines_of(path: &str) -> Result<Vec<Vec<u8>>> {
    let text = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let lines: Vec<Vec<u8>> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    if lines.is_empty() {
        return Err(format!("{path}: no lines"));
    }
    Ok(lines)
}

/// Requests sent before the measured ones: `all`, unless `WEB_COSTS_WARM` says otherwise.
fn warm_up(all: usize) -> usize {
    std::env::var("WEB_COSTS_WARM")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(all)
}

/// Context switches (voluntary, involuntary) of every thread of `pid`.
fn context_switches(pid: u32) -> (u64, u64) {
    let mut total = (0, 0);
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return total;
    };
    for task in tasks.flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        for line in status.lines() {
            let number = |l: &str| l.split_whitespace().nth(1).and_then(|n| n.parse().ok());
            if line.starts_with("voluntary_ctxt_switches:") {
                total.0 += number(line).unwrap_or(0);
            } else if line.starts_with("nonvoluntary_ctxt_switches:") {
                total.1 += number(line).unwrap_or(0);
            }
        }
    }
    total
}

/// On-CPU and run-queue wait nanoseconds of every thread of `pid` (`schedstat`).
fn sched_ns(pid: u32) -> (u64, u64) {
    let mut total = (0, 0);
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return total;
    };
    for task in tasks.flatten() {
        let Ok(s) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        let v: Vec<u64> = s
            .split_whitespace()
            .filter_map(|n| n.parse().ok())
            .collect();
        if v.len() >= 2 {
            total.0 += v[0];
            total.1 += v[1];
        }
    }
    total
}

fn prg(lines: &str, n: usize, expect: &str, cmd: &[String]) -> Result<()> {
    let lines = lines_of(lines)?;
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", cmd[0]))?;
    let mut to = child.stdin.take().expect("piped");
    let mut from = BufReader::new(child.stdout.take().expect("piped"));
    let mut answer = Vec::new();
    let mut request = Vec::new();
    let mut before = None;
    let warm = warm_up(lines.len());
    // Diagnostic: write over this many bytes before each request, as the web server's
    // other work does between two lookups, so that the program finds its caches cold.
    let thrash: usize = std::env::var("WEB_COSTS_THRASH")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let mut junk = vec![0u8; thrash];
    let mut started = std::time::Instant::now();
    let mut sched_before = (0, 0);
    let mut self_before = (0, 0);
    for i in 0..warm + n {
        if i == warm {
            before = Some(context_switches(child.id()));
            sched_before = sched_ns(child.id());
            self_before = sched_ns(std::process::id());
            started = std::time::Instant::now();
        }
        let line = &lines[i % lines.len()];
        for b in junk.iter_mut().step_by(64) {
            *b = b.wrapping_add(1);
        }
        request.clear();
        request.extend_from_slice(line);
        request.push(b'\n');
        to.write_all(&request).map_err(|e| format!("write: {e}"))?;
        answer.clear();
        from.read_until(b'\n', &mut answer)
            .map_err(|e| format!("read: {e}"))?;
        if !answer.starts_with(expect.as_bytes()) {
            return Err(format!(
                "answer {i} to {:?} is {:?}, not {expect:?}…",
                String::from_utf8_lossy(line),
                String::from_utf8_lossy(&answer)
            ));
        }
    }
    let elapsed = started.elapsed();
    let sched_after = sched_ns(child.id());
    let self_after = sched_ns(std::process::id());
    let after = context_switches(child.id());
    let before = before.unwrap_or(after);
    drop(to);
    child.wait().map_err(|e| e.to_string())?;
    println!("ctxt {} {}", after.0 - before.0, after.1 - before.1);
    println!("wall_ns {}", elapsed.as_nanos() / n.max(1) as u128);
    let per = |a: u64, b: u64| (b - a) / n.max(1) as u64;
    println!(
        "cpu_ns {} wait_ns {} client_cpu_ns {} client_wait_ns {}",
        per(sched_before.0, sched_after.0),
        per(sched_before.1, sched_after.1),
        per(self_before.0, self_after.0),
        per(self_before.1, self_after.1)
    );
    Ok(())
}

trait Conn: Read + Write {}
impl<T: Read + Write> Conn for T {}

fn http(addr: &str, paths: &str, n: usize, expect: &str, pid: Option<u32>) -> Result<()> {
    let paths = lines_of(paths)?;
    let mut conn: Box<dyn Conn> = match addr.strip_prefix("unix:") {
        Some(p) => Box::new(UnixStream::connect(p).map_err(|e| format!("{addr}: {e}"))?),
        None => {
            let s = TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
            s.set_nodelay(true).map_err(|e| e.to_string())?;
            Box::new(s)
        }
    };
    let mut buf = vec![0u8; 64 * 1024];
    let mut have = 0;
    let mut request = Vec::new();
    let mut before = None;
    let warm = warm_up(paths.len());
    for i in 0..warm + n {
        if i == warm {
            before = pid.map(context_switches);
        }
        let path = &paths[i % paths.len()];
        // What nginx's proxy_pass sends with the shipped noid-proxy.conf for a client
        // that sends no Accept (as wrk): the other client headers stay in nginx.
        request.clear();
        request.extend_from_slice(b"GET ");
        request.extend_from_slice(path);
        request.extend_from_slice(b" HTTP/1.1\r\nX-Forwarded-Proto: http\r\nHost: noidr\r\n\r\n");
        conn.write_all(&request)
            .map_err(|e| format!("write: {e}"))?;
        // One response: its head, then Content-Length bytes of body.
        let (head_end, body_len) = loop {
            if let Some(end) = memchr::memmem::find(&buf[..have], b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap_or(0));
                break (end + 4, len);
            }
            let got = conn
                .read(&mut buf[have..])
                .map_err(|e| format!("read: {e}"))?;
            if got == 0 {
                return Err(format!("connection closed after {i} answers"));
            }
            have += got;
        };
        while have < head_end + body_len {
            let got = conn
                .read(&mut buf[have..])
                .map_err(|e| format!("read: {e}"))?;
            if got == 0 {
                return Err("connection closed in a body".into());
            }
            have += got;
        }
        if !buf.starts_with(expect.as_bytes()) {
            return Err(format!(
                "answer {i} to {:?} is {:?}, not {expect:?}…",
                String::from_utf8_lossy(path),
                String::from_utf8_lossy(&buf[..head_end])
            ));
        }
        buf.copy_within(head_end + body_len..have, 0);
        have -= head_end + body_len;
    }
    if let (Some(pid), Some(before)) = (pid, before) {
        let after = context_switches(pid);
        println!("ctxt {} {}", after.0 - before.0, after.1 - before.1);
    }
    Ok(())
}
