"""The console's Usage section (an identifier's page) and Usage page in a real browser:
the counts are made by the real `noidr --http --counts` resolving the populator's
binder for known requests (people's and a robot's User-Agents), then read by `noid
serve`'s console: the SVG chart is there with its accessible name, the day-by-day
table holds the counts sent, the totals by kind and the lists' links are right, the
pages are axe-clean and fit a 360 px screen. Screenshots of each.

Expected values come from elsewhere than the console: the requests this test sends,
counted by hand, and `noid stats --format json` run by the CLI on the same binder.
"""

import datetime
import json
import os
import subprocess
import types
import unittest
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By

import harness

PERSON = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"
ROBOT = "Googlebot/2.1 (+http://www.google.com/bot.html)"
#: The requests sent to noidr: (identifier, User-Agent, how many times).
REQUESTS = [
    ("ark:/99999/fk4a", PERSON, 3),
    ("ark:/99999/fk4a", ROBOT, 2),
    ("ark:/99999/fk4b", PERSON, 1),
]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Takes a redirect as the answer (noidr's, counted), without following it."""

    def redirect_request(self, *args):
        return None


def today(days_ago=0):
    """Today (UTC) or `days_ago` days before, YYYY-MM-DD."""
    day = datetime.datetime.now(datetime.timezone.utc).date()
    return (day - datetime.timedelta(days=days_ago)).isoformat()


class Usage(harness.ConsolePages, unittest.TestCase):
    """One browser session, in order (test_1 … test_4)."""

    @classmethod
    def setUpClass(cls):
        cls.api = harness.Api()
        cls.sam = cls.api.populator("sam", "sam", "secret")
        for ident in ("ark:/99999/fk4a", "ark:/99999/fk4b"):
            harness.bind(cls.sam, ident, "_t", f"https://example.org/{ident[-4:]}")
        # The resolver counts into the binder's directory; stopped (SIGTERM), it writes
        # what it counted before it exits.
        noidr = harness.Noidr(types.SimpleNamespace(dir=cls.sam), "--counts")
        opener = urllib.request.build_opener(NoRedirect)
        for ident, agent, times in REQUESTS:
            for _ in range(times):
                req = urllib.request.Request(noidr.url(f"/{ident}"),
                                             headers={"User-Agent": agent})
                try:
                    opener.open(req)
                    raise AssertionError(f"{ident}: no redirect")
                except urllib.error.HTTPError as e:
                    if e.code != 302:
                        raise AssertionError(f"{ident}: {e.code}") from e
        noidr.stop()
        cls.server = cls.api.start()
        cls.driver = harness.browser()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def stats(self, *args):
        """`noid -f BINDER stats ARGS --format json`, read: the CLI's report."""
        out = subprocess.run([harness.NOID, "-f", self.sam, "stats", *args, "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out)

    def page(self, name):
        """axe clean, readable on a phone, screenshots (wide and 360 px)."""
        harness.check_axe(self.driver)
        harness.assert_fits(self.driver)
        harness.full_screenshot(self.driver, f"usage-{name}")
        harness.full_screenshot(self.driver, f"usage-{name}-phone", width=360)
        # The chart alone, wide and on a phone: to look at, for legibility.
        size = self.driver.get_window_size()
        for width, suffix in ((size["width"], ""), (360, "-phone")):
            self.driver.set_window_size(width, size["height"])
            chart = self.driver.find_element(By.CSS_SELECTOR, "svg.usage-chart")
            self.driver.execute_script("arguments[0].scrollIntoView()", chart)
            chart.screenshot(os.path.join(harness.artifacts(), f"usage-{name}-chart{suffix}.png"))
        self.driver.set_window_size(size["width"], size["height"])

    def day_rows(self, scope):
        """The day-by-day table's rows under `scope`: [day, people, robots]."""
        self.driver.find_element(By.CSS_SELECTOR, f"{scope} details.usage-days summary").click()
        rows = self.driver.find_elements(By.CSS_SELECTOR, f"{scope} details.usage-days tbody tr")
        return [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")] for r in rows]

    def chart_named(self, title_id, expected_title):
        """The chart is an image named by its title (aria-labelledby), with a
        description."""
        svg = self.driver.find_element(By.CSS_SELECTOR, "svg.usage-chart")
        self.assertEqual(svg.get_attribute("role"), "img")
        label = self.driver.execute_script(
            "const s = document.querySelector('svg.usage-chart');"
            "return s.getAttribute('aria-labelledby').split(' ')"
            ".map(i => document.getElementById(i).textContent);")
        self.assertEqual(label[0], expected_title)
        # A bar is drawn beside the legend's swatch.
        self.assertGreater(len(self.driver.find_elements(By.CSS_SELECTOR,
                                                         "svg.usage-chart rect.people")), 1)
        return label

    def test_1_login(self):
        # The CLI agrees with the requests sent, counted by hand.
        report = self.stats("ark:/99999/fk4", "--days", "7")
        self.assertEqual(report["total"], {"person": {"redirect-302": 4},
                                           "robot": {"redirect-302": 2}})
        self.go("/console/")
        self.fill("populator", "sam")
        self.fill("login", "sam")
        self.fill("password", "secret")
        self.click("Log in")

    def test_2_the_identifier_page_has_a_usage_section(self):
        self.go("/console/p/sam/id?id=ark:/99999/fk4a")
        harness.assert_text(self.driver, "#usage", "Usage")
        label = self.chart_named("id-usage-title",
                                 f"Requests per day for ark:/99999/fk4a, {today(89)} to "
                                 f"{today()} (UTC)")
        self.assertEqual(label[1], f"90 days: 3 requests by people and 2 by robots; the most on "
                                   f"{today()}: 5 (3 by people, 2 by robots).")
        rows = self.day_rows("main")
        self.assertEqual(len(rows), 90)
        self.assertEqual(rows[-1], [today(), "3", "2"])
        self.assertEqual(rows[0], [today(89), "0", "0"])
        self.page("identifier")

    def test_3_the_usage_page_from_the_navigation(self):
        self.driver.find_element(By.LINK_TEXT, "Usage").click()
        harness.assert_text(self.driver, "h1", "Usage")
        self.fill("usage-id", "ark:/99999/fk4")
        self.fill("usage-days", "7")
        self.click("Show")
        report = self.stats("ark:/99999/fk4", "--days", "7")
        self.chart_named("usage-title", f"Requests per day for ark:/99999/fk4, {today(6)} to "
                                        f"{today()} (UTC)")
        rows = self.day_rows("main")
        self.assertEqual(rows, [[d["day"], str(sum(d["person"].values())),
                                 str(sum(d["robot"].values()))] for d in report["days"]])
        self.assertEqual(rows[-1], [today(), "4", "2"])
        totals = self.driver.find_elements(By.CSS_SELECTOR, "table.usage:not(.ranked) tbody tr")
        self.assertIn(["redirect-302", "4", "2"],
                      [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")]
                       for r in totals])
        ranked = self.driver.find_elements(By.CSS_SELECTOR, "table.ranked tbody tr")
        self.assertEqual([[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in ranked],
                         [["ark:/99999/fk4a", "3", "2"], ["ark:/99999/fk4b", "1", "0"]])
        self.assertEqual([r["id"] for r in report["most_resolved"]],
                         ["ark:/99999/fk4a", "ark:/99999/fk4b"])
        harness.assert_text(self.driver, ".downloads",
                            "Download this report: CSV (one row per day, identifier, kind and "
                            "class) · JSON")
        base = self.server.url("/console/p/sam/")
        self.assertEqual([a.get_attribute("href") for a in
                          self.driver.find_elements(By.CSS_SELECTOR, ".downloads a")],
                         [f"{base}usage.csv?id=ark%3A%2F99999%2Ffk4&days=7",
                          f"{base}usage.json?id=ark%3A%2F99999%2Ffk4&days=7"])
        self.page("shoulder")
        # A list's entry opens its identifier's page.
        self.driver.find_element(By.LINK_TEXT, "ark:/99999/fk4b").click()
        harness.assert_text(self.driver, "h1", "ark:/99999/fk4b")

    def test_4_a_bad_period_is_refused_with_the_reason(self):
        self.go("/console/p/sam/usage?id=ark:/99999/fk4&days=400")
        harness.assert_text(self.driver, ".notice.error",
                            "Not shown: days 400: give a number from 1 to 366 here (the CSV "
                            "and JSON downloads and the API's stats give up to 36600).")
        harness.assert_absent(self.driver, "svg.usage-chart")


if __name__ == "__main__":
    unittest.main()
