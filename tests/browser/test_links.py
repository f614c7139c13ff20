"""The console's "Link health" page and an identifier's link status in a real browser:
`noid serve` with `[links]` checks two targets on a loopback site (one answers, one is
404), the page counts and filters them, links each row to its identifier, offers the
download of what it shows; axe-core clean, readable on a phone, a screenshot of each.

Expected values come from the loopback site's own answers (which path is 404).
"""

import http.server
import threading
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

import harness


class Target(http.server.BaseHTTPRequestHandler):
    """`/report` is a page, anything else 404."""

    def answer(self, body=True):
        found = self.path == "/report"
        page = (b'<!DOCTYPE html><html lang="en"><head><title>A report</title></head>'
                b'<body><main>The report of the year, with its findings.</main></body></html>'
                if found else b"<html><head><title>Not found</title></head></html>")
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        if body:
            self.wfile.write(page)

    def do_GET(self):
        self.answer()

    def do_HEAD(self):
        self.answer(body=False)

    def log_message(self, *args):
        pass


class LinkHealth(harness.ConsolePages, unittest.TestCase):
    """One browser session, in order."""

    @classmethod
    def setUpClass(cls):
        site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Target)
        threading.Thread(target=site.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{site.server_address[1]}"
        cls.ok, cls.gone = f"{base}/report", f"{base}/gone"
        cls.api = harness.Api()
        cls.sam = cls.api.populator("sam", "sam", "secret")
        for ident, target in (("ark:/99999/fk4a", cls.ok), ("ark:/99999/fk4b", cls.gone)):
            harness.bind(cls.sam, ident, "_t", target)
        cls.api.toml[:0] = [
            "[links]", 'contact = "https://noid.example.org/about-links"', 'interval = "2s"',
            "failures = 1", 'span = "0s"', 'allow_net = ["127.0.0.0/8"]']
        cls.server = cls.api.start()
        cls.driver = harness.browser()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def page(self, name):
        harness.check_axe(self.driver)
        harness.assert_fits(self.driver)
        harness.full_screenshot(self.driver, f"links-{name}")

    def test_1_counts_and_rows(self):
        self.go("/console/login")
        for field, value in (("populator", "sam"), ("login", "sam"), ("password", "secret")):
            self.fill(field, value)
        # Waits for the login page to be replaced: reading the new page's heading while
        # the old one is torn down fails with "stale element" (a CI run).
        self.click("Log in")
        harness.assert_text(self.driver, "h1", "Binders and minters")

        def both_checked(driver):
            driver.get(self.server.url("/console/p/sam/links"))
            return len(driver.find_elements(By.CSS_SELECTOR, "table.links tbody tr")) == 2

        WebDriverWait(self.driver, 30, poll_frequency=0.3).until(both_checked)
        harness.assert_text(self.driver, "h1", "Link health")
        counts = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[1].text
                  for r in self.driver.find_elements(By.CSS_SELECTOR, "table.counts tbody tr")}
        self.assertEqual(counts["ok"], "1")
        self.assertEqual(counts["broken"], "1")
        self.assertEqual(counts["drifted"], "0")
        self.page("all")

    def test_2_filter_and_open_the_identifier(self):
        Select(self.driver.find_element(By.ID, "links-status")).select_by_value("broken")
        self.click("Show")
        self.assertTrue(self.driver.current_url.endswith("/console/p/sam/links?status=broken&under=&populator=&host="),
                        self.driver.current_url)
        rows = self.driver.find_elements(By.CSS_SELECTOR, "table.links tbody tr")
        self.assertEqual([r.find_elements(By.TAG_NAME, "td")[1].text for r in rows], [self.gone])
        download = self.driver.find_element(By.PARTIAL_LINK_TEXT, "Download these 1 rows")
        self.assertTrue(download.get_attribute("href").endswith("/console/p/sam/links.csv?status=broken"))
        self.page("broken")
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(By.LINK_TEXT, "ark:/99999/fk4b").click()
        WebDriverWait(self.driver, 20).until(harness.replaced(old))
        harness.assert_text(self.driver, "h1", "ark:/99999/fk4b")
        cells = [c.text for c in self.driver.find_elements(By.CSS_SELECTOR, "table.history tbody tr td")]
        self.assertEqual(cells[1:4], ["(first check)", "broken", "404"])
        self.page("identifier")


if __name__ == "__main__":
    unittest.main()
