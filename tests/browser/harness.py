"""The browser tests' reusable pieces (see tests/browser/run.sh).

Real parts only: the real `noid` creates and writes a minter in a temporary directory,
the real `noidr --http` and `noid serve` listen on 127.0.0.1 on a port the system picks,
and Debian's Chromium, driven by Debian's chromedriver through python3-selenium, loads
their pages. axe-core (a pinned version installed by scripts/setup.sh outside the
clone) checks every page it is given for WCAG 2.0/2.1 A and AA violations; when it is
missing the check fails, it is never skipped.

Typical use, one browser session per test file:

    import harness
    minter = harness.Minter()
    minter.bind("13030/x", "_t", "https://example.org/x")
    noidr = harness.Noidr(minter)
    driver = harness.browser()
    driver.get(noidr.url("/ark:/13030/x?info"))
    harness.assert_text(driver, "h1", "ark:/13030/x")
    harness.check_axe(driver)
    harness.screenshot(driver, "identifier")
"""

import atexit
import base64
import http.server
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: The axe-core version scripts/setup.sh installs (keep the two in step).
AXE_VERSION = "4.10.3"
#: The WCAG levels checked: A and AA of WCAG 2.0 and 2.1.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def bin_dir():
    """Where `noid` and `noidr` are: $NOID_BIN_DIR, else the release build of
    $CARGO_TARGET_DIR (as tests/e2e/run.sh finds them)."""
    if os.environ.get("NOID_BIN_DIR"):
        return os.environ["NOID_BIN_DIR"]
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/noid-target")
    return os.path.join(target, "release")


NOID = os.path.join(bin_dir(), "noid")
NOIDR = os.path.join(bin_dir(), "noidr")


def axe_path():
    """axe.min.js: $NOID_AXE_JS, else scripts/setup.sh's install under the cache."""
    if os.environ.get("NOID_AXE_JS"):
        return os.environ["NOID_AXE_JS"]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "noid-axe", AXE_VERSION, "node_modules", "axe-core", "axe.min.js")


def artifacts():
    """The directory screenshots are kept in (outside the clone): $NOID_BROWSER_ARTIFACTS
    (tests/browser/run.sh sets and prints it), else one made for this process."""
    global _ARTIFACTS
    if _ARTIFACTS is None:
        _ARTIFACTS = os.environ.get("NOID_BROWSER_ARTIFACTS")
        if not _ARTIFACTS:
            _ARTIFACTS = tempfile.mkdtemp(prefix="noid-browser-")
            atexit.register(lambda: print(f"browser screenshots: {_ARTIFACTS}", file=sys.stderr))
        os.makedirs(_ARTIFACTS, exist_ok=True)
    return _ARTIFACTS


_ARTIFACTS = None


def _tempdir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


class Minter:
    """A real minter made by `noid dbcreate` in a temporary directory (removed at exit).

    `template` is dbcreate's arguments, e.g. ("f5.reedeedk", "long", "13030",
    "example.org", "test"); none makes a bind-only minter."""

    def __init__(self, *template):
        self.dir = _tempdir("noid-browser-db.")
        self.noid("dbcreate", *template)

    def noid(self, *args, stdin=None):
        """Runs `noid -f DIR ARGS…`; its standard output. Fails the test on a non-zero
        exit, with what noid printed."""
        p = subprocess.run([NOID, "-f", self.dir, *args], input=stdin, capture_output=True,
                           text=True, check=False)
        if p.returncode != 0:
            raise AssertionError(f"noid {' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
        return p.stdout

    def bind(self, ident, element, value):
        """`noid bind set ID ELEMENT VALUE`."""
        return self.noid("bind", "set", ident, element, value)

    def bulk(self, lines):
        """Runs noid commands, one a line, in one bulk run (one process, one commit per
        run of writes): faster than many `bind` calls."""
        return self.noid("-", stdin="".join(line + "\n" for line in lines))


class Server:
    """A real server process started with an address to listen on of 127.0.0.1:0; it
    logs the address it bound (`… on 127.0.0.1:PORT`), which is waited for. Its log is
    kept in memory (`log()`), and it is stopped with SIGTERM at exit or by `stop()`."""

    ADDR = re.compile(r" on (127\.0\.0\.1:\d+)")

    def __init__(self, argv, name, env=None):
        self.name = name
        self.lines = []
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=env)
        atexit.register(self.stop)
        # The log is read on a thread from the start, so that waiting for the address
        # is bounded by the deadline even while the server writes nothing.
        self.fresh = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.monotonic() + 30
        addr = None
        while addr is None:
            try:
                line = self.fresh.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise AssertionError(f"{name} did not listen within 30 s:\n{self.log()}") from None
            if line is None:
                self.proc.wait()
                raise AssertionError(f"{name} exited before listening:\n{self.log()}")
            m = self.ADDR.search(line)
            addr = m and m.group(1)
        self.base = f"http://{addr}"

    def _drain(self):
        """Keeps every line of the log, and hands each to the start's wait (`None` at
        the end of the log)."""
        for line in self.proc.stderr:
            self.lines.append(line)
            self.fresh.put(line)
        self.fresh.put(None)

    def log(self):
        """Everything the server logged so far."""
        return "".join(self.lines)

    def url(self, path):
        """The absolute URL of `path` (which starts with `/`) on this server."""
        return self.base + path

    def stop(self):
        """SIGTERM, and wait for the exit."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Noidr(Server):
    """`noidr -f MINTER --http 127.0.0.1:0 --log-level info ARGS…` (e.g. `--registry
    FILE`)."""

    def __init__(self, minter, *args):
        argv = [NOIDR, "-f", minter.dir, *args, "--http", "127.0.0.1:0", "--log-level", "info"]
        super().__init__(argv, "noidr --http")


class NoidServe(Server):
    """`noid serve --http 127.0.0.1:0 --config CONFIG` (the binder and minter API, and
    its console)."""

    def __init__(self, config, *args):
        argv = [NOID, "serve", "--http", "127.0.0.1:0", "--config", config, *args]
        super().__init__(argv, "noid serve")


class Api:
    """A `noid serve` configuration in a temporary directory: `populator(NAME, LOGIN,
    PASSWORD)` adds a populator with its own binder (a bind-only minter) and, if
    `minter` (dbcreate's arguments) is given, a minter under `minters/NAME/…`;
    `start()` writes the TOML and starts `noid serve` on it."""

    def __init__(self):
        self.dir = _tempdir("noid-browser-api.")
        self.toml = []
        self.binders = {}

    def populator(self, name, login, password, minter=None, write=True):
        """Adds a populator; its binder (a `Minter`-like directory) is returned."""
        pw = os.path.join(self.dir, f"pwdfile_{name}")
        subprocess.run(["htpasswd", "-B", "-b", "-c", pw, login, password], check=True,
                       capture_output=True)
        binder = os.path.join(self.dir, "binders", name)
        subprocess.run([NOID, "-f", binder, "dbcreate"], check=True, capture_output=True)
        self.toml += [f"[populator.{name}]", f'htpasswd = "{pw}"', f'binder = "{binder}"']
        if minter:
            minters = os.path.join(self.dir, "minters", name)
            # dbcreate's NAAN and shoulder name the minter's directory: NAAN/SHOULDER.
            template, naan = minter[0], minter[2]
            shoulder = template.split(".")[0]
            subprocess.run([NOID, "-f", os.path.join(minters, "ark", naan, shoulder),
                            "dbcreate", *minter], check=True, capture_output=True)
            self.toml.append(f'minters = "{minters}"')
        if not write:
            self.toml.append("write = false")
        self.binders[name] = binder
        return binder

    def start(self, *args):
        """Writes the configuration and starts `noid serve` on it."""
        config = os.path.join(self.dir, "api.toml")
        with open(config, "w", encoding="utf-8") as f:
            f.write("\n".join(self.toml) + "\n")
        return NoidServe(config, *args)


def browser(width=1280, height=900):
    """A WebDriver session with Debian's headless Chromium (no browser download); quit
    at exit. One per test file keeps the suite quick."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            raise AssertionError(f"{path} missing: scripts/setup.sh installs chromium and "
                                 "chromium-driver")
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--lang=en-US", "--hide-scrollbars"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(60)
    atexit.register(driver.quit)
    return driver


def check_axe(driver):
    """Runs axe-core in the loaded page and fails on any violation of WCAG 2.0/2.1 A or
    AA (`AXE_TAGS`), naming each rule, its impact and the elements. Fails, never skips,
    when axe-core is not installed."""
    path = axe_path()
    if not os.path.exists(path):
        raise AssertionError(f"axe-core {AXE_VERSION} missing at {path}: run scripts/setup.sh "
                             "(it installs it with npm), or set NOID_AXE_JS")
    with open(path, encoding="utf-8") as f:
        driver.execute_script(f.read())
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done({violations: r.violations.map(v => ({id: v.id, impact: v.impact,"
        " help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})), passes: r.passes.length}))"
        ".catch(e => done({error: String(e)}));", AXE_TAGS)
    if "error" in result:
        raise AssertionError(f"axe-core failed on {driver.current_url}: {result['error']}")
    if result["violations"]:
        lines = [f"  {v['id']} ({v['impact']}): {v['help']}: {', '.join(v['nodes'])}"
                 for v in result["violations"]]
        raise AssertionError(f"accessibility violations on {driver.current_url}:\n"
                             + "\n".join(lines))
    if result["passes"] == 0:
        raise AssertionError(f"axe-core checked nothing on {driver.current_url}")


def screenshot(driver, name):
    """Saves the viewport as NAME.png in the artifacts directory; its path."""
    path = os.path.join(artifacts(), f"{name}.png")
    if not driver.save_screenshot(path):
        raise AssertionError(f"screenshot {name} not saved")
    return path


def full_screenshot(driver, name, width=None):
    """As `screenshot`, of the whole page rather than the viewport (Chromium's
    DevTools capture beyond the viewport), the window `width` CSS pixels wide if
    given (a phone: 390)."""
    size = driver.get_window_size()
    if width:
        driver.set_window_size(width, size["height"])
    try:
        content = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": content["width"], "height": content["height"],
                     "scale": 1}})
    finally:
        driver.set_window_size(size["width"], size["height"])
    path = os.path.join(artifacts(), f"{name}.png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    return path


def text(driver, css):
    """The rendered text of the one element `css` selects (fails if none or several)."""
    found = driver.find_elements(By.CSS_SELECTOR, css)
    if len(found) != 1:
        raise AssertionError(f"{len(found)} elements match {css!r} on {driver.current_url}")
    return found[0].text


def replaced(old):
    """A wait condition: the page whose element `old` is (its `html`) has been replaced.

    Like selenium's `staleness_of`, except that it also takes Chromium's answer for a
    node of a page being torn down, "Node with given id does not belong to the
    document", which it gives instead of "stale" when asked in the middle of the
    navigation (seen in a full test run: the click had gone through, and the wait
    failed with that error).
    """

    def check(_driver):
        try:
            old.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as e:
            if "does not belong to the document" in str(e):
                return True
            raise

    return check


def assert_text(driver, css, expected):
    """The one element `css` selects shows exactly `expected` (as rendered: its visible
    text, lines joined by newlines)."""
    got = text(driver, css)
    if got != expected:
        raise AssertionError(f"{css!r} on {driver.current_url}:\n  expected {expected!r}\n"
                             f"  got      {got!r}")


def assert_texts(driver, css, expected):
    """Every element `css` selects, in order, shows exactly the texts `expected`."""
    got = [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]
    if got != list(expected):
        raise AssertionError(f"{css!r} on {driver.current_url}:\n  expected {list(expected)!r}\n"
                             f"  got      {got!r}")


def assert_absent(driver, css):
    """No element matches `css`."""
    try:
        driver.find_element(By.CSS_SELECTOR, css)
    except NoSuchElementException:
        return
    raise AssertionError(f"{css!r} found on {driver.current_url}")


def wait_url(driver, url, seconds=10):
    """Waits until the browser is at `url` (after a click that navigates); fails
    naming where it is instead."""
    deadline = time.monotonic() + seconds
    while driver.current_url != url:
        if time.monotonic() > deadline:
            raise AssertionError(f"expected to be at {url}, still at {driver.current_url}")
        time.sleep(0.05)


def assert_fits(driver, width=360):
    """At a phone's width (`width` CSS pixels) the page needs no sideways scrolling."""
    size = driver.get_window_size()
    driver.set_window_size(width, size["height"])
    try:
        over = driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    finally:
        driver.set_window_size(size["width"], size["height"])
    if over > 0:
        raise AssertionError(f"{driver.current_url} is {over}px too wide at {width}px")


class Landing(http.server.BaseHTTPRequestHandler):
    """A target site: every path answered with a small page naming it."""

    def do_GET(self):
        body = (f'<!DOCTYPE html><html lang="en"><head><title>landing</title></head>'
                f'<body><main><h1>landed on {self.path}</h1></main></body></html>').encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def landing_site():
    """Start a `Landing` site on 127.0.0.1 (for the rest of the process): its base URL."""
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Landing)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{site.server_address[1]}"


def bind(binder, ident, elem, value):
    """`noid -f BINDER bind set ID ELEM VALUE`, as a curator's other tools would: the
    fixtures a test's console pages then show. Fails the test on a non-zero exit."""
    subprocess.run([NOID, "-f", binder, "bind", "set", ident, elem, value], check=True,
                   capture_output=True)


def noid_get(binder, ident, elem):
    """What `noid -f BINDER get ID ELEM` prints (an empty line, and exit 1, for none):
    what the store holds, read by another way in than the console's."""
    return subprocess.run([NOID, "-f", binder, "get", ident, elem], capture_output=True,
                          text=True, check=False).stdout


class ConsolePages:
    """What a test of the console does on its pages, for a `unittest.TestCase` whose
    class has `driver` (a browser) and `server` (a running `noid serve`)."""

    def go(self, path):
        """Opens the console's page `path`."""
        self.driver.get(self.server.url(path))

    def fill(self, field, value):
        """Types `value` into the form field whose id is `field`, emptied first."""
        e = self.driver.find_element(By.ID, field)
        e.clear()
        e.send_keys(value)

    def click(self, text):
        """Clicks the button `text` and waits for the page it loads."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(By.XPATH, f"//button[normalize-space()='{text}']").click()
        WebDriverWait(self.driver, 20).until(replaced(old))
