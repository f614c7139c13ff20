"""The console's history and "Change many" in a real browser: an identifier's History
table (who, when, which element, old value -> new), the rewrite's preview with its count
and sample, Apply with its operation id, and Undo; axe-core clean on each page, and a
screenshot of each.

Expected values come from elsewhere than the console: bindings made and read back with
the `noid` CLI, and the operation ids read from the binder's write log.
"""

import os
import re
import unittest

from selenium.webdriver.common.by import By

import harness

IDS = ("x1", "x2", "y1")


def logged_ops(binder):
    """The operation ids of the binder's write log, in order, each once (the ninth
    field of a record, docs/API.md "The write log")."""
    ops = []
    with open(os.path.join(binder, "write.log"), encoding="utf-8") as f:
        for line in f:
            op = line.rstrip("\n").split("\t")[8]
            if op != "-" and op not in ops:
                ops.append(op)
    return ops


class History(harness.ConsolePages, unittest.TestCase):
    """One browser session, in order (test_1 … test_5)."""

    @classmethod
    def setUpClass(cls):
        cls.api = harness.Api()
        cls.sam = cls.api.populator("sam", "sam", "secret")
        for ident in IDS:
            harness.bind(cls.sam, ident, "_t", f"https://old.example.org/{ident}")
        cls.server = cls.api.start()
        cls.driver = harness.browser()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def page(self, name):
        """axe clean, readable on a phone, a screenshot."""
        harness.check_axe(self.driver)
        harness.assert_fits(self.driver)
        harness.full_screenshot(self.driver, f"history-{name}")

    def history_rows(self):
        """The History table's rows, as the texts of their cells."""
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#history + table tr")
        return [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows[1:]]

    def test_1_login_and_an_unlogged_identifier(self):
        self.go("/console/")
        self.fill("populator", "sam")
        self.fill("login", "sam")
        self.fill("password", "secret")
        self.click("Log in")
        # Bound by the CLI, which writes no log record: nothing to show yet.
        self.go("/console/p/sam/id?id=x1")
        harness.assert_text(self.driver, "#history + p",
                            "No logged writes: nothing was written here through the API, "
                            "the console or noid rewrite.")

    def test_2_a_save_shows_in_the_history(self):
        self.go("/console/p/sam/id?id=x1")
        self.fill("what", "Moths")
        self.click("Save")
        harness.assert_text(self.driver, ".notice", "Saved.")
        rows = self.history_rows()
        self.assertEqual(len(rows), 1, rows)
        self.assertRegex(rows[0][0], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
        self.assertEqual(rows[0][1:], ["sam", "set what", "", "Moths", ""])
        headers = [h.text for h in self.driver.find_elements(By.CSS_SELECTOR, "#history + table th")]
        self.assertEqual(headers, ["When (UTC)", "Who", "Change", "Old value", "New value",
                                   "Operation"])
        self.page("identifier")

    def test_3_preview_changes_nothing(self):
        self.go("/console/p/sam/rewrite")
        harness.assert_text(self.driver, "h1", "Change many targets")
        self.page("form")
        self.fill("from", "https://old.example.org/")
        self.fill("to", "https://new.example.org/")
        self.fill("under", "x")
        self.click("Preview")
        harness.assert_text(self.driver, "#count", "2 identifiers would change.")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#count + table tr")
        self.assertEqual([[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows[1:]],
                         [["x1", "https://old.example.org/x1", "https://new.example.org/x1"],
                          ["x2", "https://old.example.org/x2", "https://new.example.org/x2"]])
        self.page("preview")
        for ident in IDS:
            self.assertEqual(harness.noid_get(self.sam, ident, "_t"), f"https://old.example.org/{ident}\n")

    def test_4_apply_then_undo(self):
        self.click("Apply to 2 identifiers")
        [op] = logged_ops(self.sam)
        harness.assert_text(self.driver, "#op", f"Operation {op}: changed 2 identifiers.")
        self.page("applied")
        self.assertEqual(harness.noid_get(self.sam, "x1", "_t"), "https://new.example.org/x1\n")
        self.assertEqual(harness.noid_get(self.sam, "x2", "_t"), "https://new.example.org/x2\n")
        self.assertEqual(harness.noid_get(self.sam, "y1", "_t"), "https://old.example.org/y1\n")
        self.click(f"Undo operation {op}")
        ops = logged_ops(self.sam)
        self.assertEqual(len(ops), 2, ops)
        harness.assert_text(self.driver, "#op", f"Operation {ops[1]}: restored 2 identifiers.")
        self.page("undone")
        for ident in IDS:
            self.assertEqual(harness.noid_get(self.sam, ident, "_t"), f"https://old.example.org/{ident}\n")

    def test_5_history_shows_the_operations(self):
        ops = logged_ops(self.sam)
        self.go("/console/p/sam/id?id=x1")
        rows = [r[1:] for r in self.history_rows()]
        self.assertEqual(rows, [
            ["sam", "set _t", "https://new.example.org/x1", "https://old.example.org/x1", ops[1]],
            ["sam", "set _t", "https://old.example.org/x1", "https://new.example.org/x1", ops[0]],
            ["sam", "set what", "", "Moths", ""],
        ])
        self.assertTrue(all(re.match(r"^\d{4}-", r[0]) for r in self.history_rows()))
        self.page("identifier-after")


if __name__ == "__main__":
    unittest.main()
