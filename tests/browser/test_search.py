"""The console's search in a real browser: the search box on every page, a query's
matches in a table with title, creator, date, target and link status columns, sorting
by a column, narrowing by a facet, the download of every match, and a query that
cannot be read; axe-core clean on each page, readable on a phone, a screenshot of each.

Expected values come from elsewhere than the console: the bindings the test makes with
the `noid` CLI, and the download read back with Python's csv module.
"""

import csv
import io
import unittest
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import harness

RECORDS = (
    ("x1", "Tide gauges of the bay", "Smith, Jane", "2021", "https://a.example.org/1"),
    ("x2", "Tide tables", "Doe, J.", "2019", "https://b.example.org/2"),
    ("x3", "Harbour photographs", "Smith, Jane", "2020", "https://a.example.org/3"),
)


class Search(harness.ConsolePages, unittest.TestCase):
    """One browser session, in order (test_1 … test_4)."""

    @classmethod
    def setUpClass(cls):
        cls.api = harness.Api()
        cls.sam = cls.api.populator("sam", "sam", "secret")
        for ident, what, who, when, target in RECORDS:
            for elem, value in (("what", what), ("who", who), ("when", when), ("_t", target)):
                harness.bind(cls.sam, ident, elem, value)
        cls.server = cls.api.start()
        cls.driver = harness.browser()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def follow(self, text):
        """Follows the link `text` and waits for the page it loads."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(By.LINK_TEXT, text).click()
        WebDriverWait(self.driver, 20).until(harness.replaced(old))

    def page(self, name):
        """axe clean, readable on a phone, a screenshot."""
        harness.check_axe(self.driver)
        harness.assert_fits(self.driver)
        harness.full_screenshot(self.driver, f"search-{name}")

    def rows(self):
        """The matches' rows, as the texts of their cells."""
        rows = self.driver.find_elements(By.CSS_SELECTOR, "table.hits tr")
        return [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows[1:]]

    def test_1_the_box_on_every_page_finds_a_title(self):
        self.go("/console/")
        self.fill("populator", "sam")
        self.fill("login", "sam")
        self.fill("password", "secret")
        self.click("Log in")
        self.go("/console/p/sam/browse")
        self.fill("quick-q", "tide")
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(By.ID, "quick-q").submit()
        WebDriverWait(self.driver, 20).until(harness.replaced(old))
        harness.assert_text(self.driver, "h1", "Search")
        harness.assert_text(self.driver, "#count", "2 identifiers match; 1–2 shown.")
        self.assertEqual(sorted(r[0] for r in self.rows()), ["x1", "x2"])
        headers = [h.text for h in self.driver.find_elements(By.CSS_SELECTOR, "table.hits th")]
        self.assertEqual(headers, ["Identifier", "Title", "Creator", "Date", "Target", "Updated",
                                   "Link status"])
        self.page("tide")

    def test_2_sorting_by_a_column_and_narrowing_by_a_facet(self):
        self.go("/console/p/sam/search?q=Smith")
        self.follow("Date")
        self.assertEqual([r[:5] for r in self.rows()],
                         [["x3", "Harbour photographs", "Smith, Jane", "2020", "https://a.example.org/3"],
                          ["x1", "Tide gauges of the bay", "Smith, Jane", "2021", "https://a.example.org/1"]])
        sorted_by = self.driver.find_element(By.CSS_SELECTOR, "th[aria-sort]")
        self.assertEqual((sorted_by.text, sorted_by.get_attribute("aria-sort")), ("Date", "ascending"))
        self.follow("Date")
        self.assertEqual([r[0] for r in self.rows()], ["x1", "x3"])
        self.go("/console/p/sam/search?q=tide")
        self.follow("b.example.org")
        self.assertEqual([r[0] for r in self.rows()], ["x2"])
        self.assertEqual(self.driver.find_element(By.ID, "q").get_attribute("value"),
                         "tide host:b.example.org")
        self.page("narrowed")

    def test_3_the_download_is_every_match(self):
        self.go("/console/p/sam/search?q=host:a.example.org")
        link = self.driver.find_element(By.LINK_TEXT, "CSV").get_attribute("href")
        cookie = "; ".join(f"{c['name']}={c['value']}" for c in self.driver.get_cookies())
        req = urllib.request.Request(link, headers={"Cookie": cookie})
        with urllib.request.urlopen(req, timeout=20) as r:
            self.assertEqual(r.headers["Content-Type"], "text/csv; charset=utf-8")
            rows = list(csv.DictReader(io.StringIO(r.read().decode("utf-8"))))
        self.assertEqual(sorted((r["id"], r["target"], r["what"]) for r in rows),
                         [("x1", "https://a.example.org/1", "Tide gauges of the bay"),
                          ("x3", "https://a.example.org/3", "Harbour photographs")])

    def test_4_a_query_that_cannot_be_read_says_why(self):
        self.go("/console/p/sam/search?q=updated:%3Enever")
        notice = harness.text(self.driver, ".notice.error")
        self.assertTrue(notice.startswith("The query cannot be read: "), notice)
        self.page("refused")


if __name__ == "__main__":
    unittest.main()
