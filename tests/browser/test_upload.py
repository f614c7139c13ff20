"""The console's batch upload and recent writes in a real browser: a CSV of 1,000 rows
uploaded through the form, every row then resolved by a real `noidr --http` on the same
binder (exact targets; the minted identifiers are those the CLI mints from a copy of the
same minter), bad input reported with its line, the binder's recent writes paged; axe
clean on the upload, progress, result and recent-writes pages, each readable on a phone
(no sideways scrolling at 360 px) and screenshot."""

import csv
import fcntl
import http.client
import io
import os
import re
import subprocess
import tempfile
import time
import unittest
from urllib.parse import urlsplit

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

import harness

MINTER = ("fk4.reedeedk", "long", "99999", "example.org", "test")
ROWS = 1000


def setUpModule():
    global DRIVER, API, SERVE, BINDER, FILES
    DRIVER = harness.browser()
    API = harness.Api()
    BINDER = API.populator("sam", "sam", "secret", minter=MINTER)
    SERVE = API.start()
    FILES = tempfile.mkdtemp(prefix="noid-browser-upload.")
    login()


def login():
    DRIVER.get(SERVE.url("/console/login"))
    DRIVER.find_element(By.ID, "populator").send_keys("sam")
    DRIVER.find_element(By.ID, "login").send_keys("sam")
    DRIVER.find_element(By.ID, "password").send_keys("secret")
    DRIVER.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    WebDriverWait(DRIVER, 30).until(EC.url_to_be(SERVE.url("/console/p/sam/")))


def write(name, text):
    path = os.path.join(FILES, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return path


def upload(path, fmt="csv", minter=""):
    """Fills the upload form and submits it."""
    DRIVER.get(SERVE.url("/console/p/sam/upload"))
    DRIVER.find_element(By.ID, f"format-{fmt}").click()
    if minter:
        DRIVER.find_element(By.CSS_SELECTOR, f"#minter option[value='{minter}']").click()
    DRIVER.find_element(By.ID, "file").send_keys(path)
    page = DRIVER.find_element(By.TAG_NAME, "html")
    DRIVER.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    WebDriverWait(DRIVER, 30).until(harness.replaced(page))


def wait_done():
    """Waits (the page reloads itself) until the upload's page shows its result."""
    deadline = time.monotonic() + 60
    while not DRIVER.find_elements(By.PARTIAL_LINK_TEXT, "Download the result"):
        if time.monotonic() > deadline:
            raise AssertionError(f"upload not done: {DRIVER.page_source[:2000]}")
        time.sleep(0.2)


def result_csv():
    """The result file, fetched with the browser's session cookie."""
    link = DRIVER.find_element(By.PARTIAL_LINK_TEXT, "Download the result").get_attribute("href")
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in DRIVER.get_cookies())
    u = urlsplit(link)
    c = http.client.HTTPConnection(u.hostname, u.port)
    c.request("GET", f"{u.path}?{u.query}", headers={"Cookie": cookie})
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    assert r.status == 200, (r.status, body)
    assert r.getheader("Content-Type") == "text/csv; charset=utf-8"
    return list(csv.reader(io.StringIO(body)))


def cli_mint(n):
    """The first `n` identifiers the minter gives, minted by the CLI from a copy."""
    copy = harness.Minter(*MINTER)
    return re.findall(r"^id: (\S+)$", copy.noid("mint", str(n)), re.M)


class Upload(unittest.TestCase):
    def test_1_thousand_rows_resolve_through_noidr(self):
        rows = []
        for i in range(ROWS):
            ident = "mint" if i % 2 == 0 else f"ark:/99999/fk4given{i}"
            rows.append((ident, f"https://example.org/objects/{i}?x=1&y=\"q\"", f"Author, No. {i}"))
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\r\n")
        w.writerow(["id", "_t", "who"])
        w.writerows(rows)
        # The binder's writer lock held (as another `noid` writing would hold it): the
        # run waits for it, and its page shows the progress, reloading itself.
        with open(os.path.join(BINDER, "NOID", "lock"), "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            upload(write("rows.csv", "\ufeff" + out.getvalue()), minter="ark/99999/fk4")
            self.assertIn("/console/p/sam/uploads?n=", DRIVER.current_url)
            deadline = time.monotonic() + 30  # minting first, then the run waits
            while not DRIVER.find_elements(By.TAG_NAME, "progress"):
                self.assertLess(time.monotonic(), deadline, DRIVER.page_source[:2000])
                time.sleep(0.1)
            progress = DRIVER.find_element(By.TAG_NAME, "progress")
            self.assertEqual(progress.get_attribute("max"), str(2 * ROWS))
            harness.assert_text(DRIVER, "main .notice", f"Running: 0 of {2 * ROWS} commands run.")
            harness.check_axe(DRIVER)
            harness.assert_fits(DRIVER)
            harness.screenshot(DRIVER, "console-upload-progress")
            fcntl.flock(lock, fcntl.LOCK_UN)
        wait_done()
        harness.assert_text(DRIVER, "main .notice", f"Done: {ROWS} rows, {ROWS} written, 0 failed.")
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.full_screenshot(DRIVER, "console-upload-result")
        result = result_csv()
        self.assertEqual(result[0], ["row", "id", "outcome"])
        minted = cli_mint(ROWS // 2)
        expect = []
        for n, (ident, target, _) in enumerate(rows):
            got = minted[n // 2] if ident == "mint" else ident
            outcome = "minted and written" if ident == "mint" else "written"
            expect.append([str(n + 2), got, outcome])
        self.assertEqual(result[1:], expect)
        # Every row resolves through a real noidr on the same binder, to its exact target.
        binder = harness.Minter.__new__(harness.Minter)
        binder.dir = BINDER
        noidr = harness.Noidr(binder)
        u = urlsplit(noidr.base)
        c = http.client.HTTPConnection(u.hostname, u.port)
        for (_, ident, _), (_, target, _) in zip(result[1:], rows):
            path = "/" + (ident if ident.startswith("ark:") else "ark:/" + ident)
            c.request("GET", path)
            r = c.getresponse()
            r.read()
            self.assertEqual((r.status, r.getheader("Location")), (302, target), path)
        # And in the browser, one of them.
        DRIVER.get(noidr.url("/ark:/" + minted[0] + "?info"))
        self.assertIn("https://example.org/objects/0?x=1&amp;y=&quot;q&quot;", DRIVER.page_source)
        c.close()
        noidr.stop()

    def test_2_bad_input_reported_with_its_line(self):
        upload(write("bad.csv", "id,_t\nx1,https://example.org/1\nx2\nx3,https://example.org/3\n"))
        harness.assert_text(DRIVER, "main .notice.error", "line 3: 1 fields where the header row has 2")
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.screenshot(DRIVER, "console-upload-refused")
        # A row the binder refuses: reported with its line; the others written.
        upload(write("reserved.csv", "id,_t,:/x\nark:/99999/fk4ok1,https://example.org/1,\n"
                             "ark:/99999/fk4bad,https://example.org/2,v\n"))
        wait_done()
        harness.assert_text(DRIVER, "main .notice", "Done: 2 rows, 1 written, 1 failed.")
        harness.assert_texts(DRIVER, "main table tbody tr",
                             ['3 ark:/99999/fk4bad error: ark:/99999/fk4bad: element names '
                              'beginning ":/" are reserved.',
                              '2 ark:/99999/fk4ok1 written'])
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.screenshot(DRIVER, "console-upload-failed-row")
        # Nothing of the refused file was written; the upload page itself is accessible.
        self.assertNotIn("x1", subprocess.run([harness.NOID, "-f", BINDER, "x1.get", "_t"],
                                               capture_output=True, text=True).stdout)
        DRIVER.get(SERVE.url("/console/p/sam/upload"))
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.screenshot(DRIVER, "console-upload")

    def test_3_recent_writes(self):
        DRIVER.get(SERVE.url("/console/p/sam/writes"))
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.screenshot(DRIVER, "console-recent-writes")
        cells = [e.text for e in DRIVER.find_elements(By.CSS_SELECTOR, "main tbody tr:first-child td")]
        # The newest write: the last cell written by the last upload (test 2's row 2, _t).
        self.assertEqual(cells[1:], ["sam", "ark:/99999/fk4bad", "set _t", "https://example.org/2"])
        self.assertEqual(len(DRIVER.find_elements(By.CSS_SELECTOR, "main tbody tr")), 50)
        DRIVER.find_element(By.LINK_TEXT, "Older writes").click()
        self.assertEqual(len(DRIVER.find_elements(By.CSS_SELECTOR, "main tbody tr")), 50)
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
    def test_4_recent_writes_on_a_phone(self):
        """At 390 px each write is a block of labelled cells: Change and Value are within
        the viewport (issue 41, item 8); the filter form too; axe clean."""
        size = DRIVER.get_window_size()
        DRIVER.set_window_size(390, size["height"])
        try:
            DRIVER.get(SERVE.url("/console/p/sam/writes"))
            harness.check_axe(DRIVER)
            harness.full_screenshot(DRIVER, "console-recent-writes-phone")
            width = DRIVER.execute_script("return document.documentElement.clientWidth")
            self.assertLessEqual(width, 390)
            rows = DRIVER.find_elements(By.CSS_SELECTOR, "main tbody tr")
            self.assertEqual(len(rows), 50)
            for label in ("Change", "Value"):
                cells = DRIVER.find_elements(By.CSS_SELECTOR, f"main td[data-label={label}]")
                self.assertEqual(len(cells), 50)
                for cell in cells:
                    r = DRIVER.execute_script(
                        "const r = arguments[0].getBoundingClientRect();"
                        "return [r.left, r.right, r.width];", cell)
                    self.assertTrue(cell.is_displayed(), label)
                    self.assertGreaterEqual(r[0], 0, label)
                    self.assertLessEqual(r[1], width, f"{label} cell ends at {r[1]}px")
                    self.assertGreater(r[2], 0, label)
            # Each cell says what it is (the column heads are off-screen).
            before = DRIVER.execute_script(
                "return getComputedStyle(arguments[0], '::before').content;",
                DRIVER.find_element(By.CSS_SELECTOR, "main td[data-label=Change]"))
            self.assertEqual(before, '"Change: "')
            harness.assert_fits(DRIVER, width=390)
        finally:
            DRIVER.set_window_size(size["width"], size["height"])


if __name__ == "__main__":
    unittest.main()
