"""The console's "How it resolves", Explain and Test rules pages in a real browser: an
identifier's page shows each step of a browser's request, the answer and the web
servers' paths; the Explain form asks again with an Accept header; Test rules takes a
pasted rules file and an uploaded cases table and shows each case passing or differing
with what was expected and what came; bad input is refused with the reason. axe-core
clean on each page, and a screenshot of each.

Expected values come from elsewhere than the console: `noid explain --format json` and
`noid rules test` run by the CLI on the same binder with the same rules file.
"""

import json
import os
import subprocess
import unittest

from selenium.webdriver.common.by import By

import harness

#: Some of docs/RESOLUTION.md's request kinds' bindings.
BINDINGS = [
    ("ark:/00224/foo", "_t", "zaf"),
    ("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/"),
    ("ark:/13030/gone", "_t", "410 withdrawn"),
    ("ark:/13030/gone", "successor", "ark:/13030/new"),
    ("ark:/13960", "_t", "https://archive.org/ark:/${id}"),
]
#: The populator's rules file, and a candidate that drops the shoulder rule.
RULES = "doi: https://doi.org/${id}\nark:/12345/fk4 https://e.org/${blade}\nglobal-resolver off\n"
CANDIDATE = "doi: https://doi.org/${id}\n"
CASES = ("# request\texpected answer\tAccept\n"
         "ark:/00224/foo/bar//zif?zaf=ab&cd\tredir302 zaf/bar//zif?zaf=ab&cd\n"
         "ark:/12345/xt2rv8b/chap3/sect5//para4.txt.1.bak\t"
         "redir302 http://obj.example.com/datasets/rv8b/chap3/sect5//para4.txt.1.bak\n"
         "ark:/12345/fk4abc\tredir302 https://e.org/abc\n"
         "doi:10.5072/FK2ABC\tredir302 https://doi.org/10.5072/FK2ABC\n"
         "ark:/99999/nope\tNULL\n"
         "ark:/13030/gone\tredir410 withdrawn\ttext/html\n")


class Explain(harness.ConsolePages, unittest.TestCase):
    """One browser session, in order (test_1 … test_5)."""

    @classmethod
    def setUpClass(cls):
        cls.api = harness.Api()
        cls.sam = cls.api.populator("sam", "sam", "secret")
        cls.files = os.path.join(cls.api.dir, "files")
        os.makedirs(cls.files)
        cls.rules = cls.write("rules", RULES)
        cls.candidate = cls.write("candidate", CANDIDATE)
        cls.cases = cls.write("cases.tsv", CASES)
        cls.api.toml.append(f'rules = "{cls.rules}"')
        for ident, elem, value in BINDINGS:
            harness.bind(cls.sam, ident, elem, value)
        cls.server = cls.api.start()
        cls.driver = harness.browser()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    @classmethod
    def write(cls, name, text):
        path = os.path.join(cls.files, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def cli(self, *args):
        """What `noid -f BINDER ARGS` prints."""
        return subprocess.run([harness.NOID, "-f", self.sam, *args], capture_output=True,
                              text=True, check=False).stdout

    def explained(self, ident, *args):
        """`noid explain ID --rules RULES --format json ARGS`, read."""
        return json.loads(self.cli("explain", ident, "--rules", self.rules, "--format", "json",
                                   *args))

    def page(self, name):
        """axe clean, readable on a phone, a screenshot."""
        harness.check_axe(self.driver)
        harness.assert_fits(self.driver)
        harness.full_screenshot(self.driver, f"explain-{name}")

    def assert_explained(self, scope, e):
        """The steps, the answer and the web servers' table under `scope` are those of
        the CLI's explanation `e`."""
        harness.assert_texts(self.driver, f"{scope} ol.steps li",
                             [f"{s['kind']}: {s['says']}" for s in e["steps"]])
        harness.assert_text(self.driver, f"{scope} .answer", f"{e['answer']} ({e['outcome']})")
        rows = self.driver.find_elements(By.CSS_SELECTOR, f"{scope} table.paths tr")
        self.assertEqual([[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows[1:]],
                         [[w["server"], w["does"]] for w in e["web_servers"]])

    def test_1_login(self):
        self.go("/console/")
        self.fill("populator", "sam")
        self.fill("login", "sam")
        self.fill("password", "secret")
        self.click("Log in")

    def test_2_the_identifier_page_explains_a_browsers_request(self):
        self.go("/console/p/sam/id?id=ark:/12345/xt2")
        harness.assert_text(self.driver, "#resolves", "How it resolves")
        e = self.explained("ark:/12345/xt2")
        self.assertEqual(e["answer"], "redir302 http://obj.example.com/datasets/")
        self.assert_explained(".explanation", e)
        harness.assert_text(self.driver, ".explanation .standing.bad",
                            "standing of ark:/12345/xt2: not good "
                            "(who missing; what missing; when missing; how missing)")
        self.page("identifier")

    def test_3_the_form_explains_another_request(self):
        self.fill("explain-accept", "application/json")
        self.click("Explain")
        harness.assert_text(self.driver, "h1", "Explain")
        harness.assert_text(self.driver, ".request",
                            "ark:/12345/xt2 with Accept: application/json over https")
        e = self.explained("ark:/12345/xt2", "--accept", "application/json")
        self.assertEqual(e["answer"], 'inflect "op=cn.application/json" "id=ark:/12345/xt2"')
        self.assert_explained(".explanation", e)
        self.page("accept")
        # A request under the populator's rules file's shoulder rule, over http.
        self.fill("explain-id", "ark:/12345/fk4abc/")
        self.fill("explain-accept", "")
        self.driver.find_element(By.CSS_SELECTOR, "#explain-proto option[value=http]").click()
        self.click("Explain")
        e = self.explained("ark:/12345/fk4abc/", "--proto", "http")
        self.assertEqual(e["answer"], "redir302 https://e.org/abc")
        self.assert_explained(".explanation", e)
        # A protocol the form does not offer, typed into the address: refused, saying why.
        self.go("/console/p/sam/explain?id=x&proto=ftp")
        harness.assert_text(self.driver, ".notice.error",
                            'Not explained: proto "ftp": give http or https.')
        harness.assert_absent(self.driver, "ol.steps")

    def test_4_test_rules_shows_each_case_passing_or_differing(self):
        self.go("/console/p/sam/rules")
        harness.assert_text(self.driver, "h1", "Test rules")
        self.page("rules-form")
        self.fill("rules", CANDIDATE)
        # Cases hold tabs, which a text area cannot be typed: uploaded as a file.
        self.driver.find_element(By.ID, "cases_file").send_keys(self.cases)
        self.click("Test")
        cli = self.cli("rules", "test", self.candidate, self.cases)
        # The CLI's diff: "line N: REQUEST", "- expected", "+ got", …, then the count.
        lines = cli.splitlines()
        differ = {}
        for i in range(0, len(lines) - 1, 3):
            differ[lines[i].split(":")[0].split()[1]] = (lines[i + 1][2:], lines[i + 2][2:])
        self.assertEqual(sorted(differ), ["4", "6"], cli)
        harness.assert_text(self.driver, ".notice.error", lines[-1] + ".")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "table.cases tr")[1:]
        self.assertEqual(len(rows), 6)
        for row in rows:
            cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
            line = cells[0]
            if line in differ:
                expected, got = differ[line]
                self.assertEqual(cells[3], "differs", cells)
                self.assertEqual(cells[4], f"Expected {expected}\nGot {got}", cells)
            else:
                self.assertEqual(cells[3], "passes", cells)
        # The form comes back with the texts tested.
        self.assertEqual(self.driver.find_element(By.ID, "rules").get_attribute("value"),
                         CANDIDATE)
        self.page("rules-differ")
        # The populator's own rules pass every case.
        self.fill("rules", RULES)
        self.driver.find_element(By.ID, "cases_file").send_keys(self.cases)
        self.click("Test")
        harness.assert_text(self.driver, ".notice",
                            "6 of 6 cases answer as expected; 0 differ.")
        harness.assert_texts(self.driver, "table.cases td.result", ["passes"] * 6)
        self.assertEqual(self.cli("rules", "test", self.rules, self.cases),
                         "6 of 6 cases answer as expected; 0 differ\n")

    def test_5_bad_rules_are_refused_with_the_reason(self):
        self.go("/console/p/sam/rules")
        self.fill("rules", "ark:/12345/fk4\n")
        self.driver.find_element(By.ID, "cases_file").send_keys(self.cases)
        self.click("Test")
        harness.assert_text(self.driver, ".notice.error",
                            'Not tested: the rules are not a rules file: line 1: rule '
                            '"ark:/12345/fk4" has no target.')
        harness.assert_absent(self.driver, "table.cases")
        self.page("rules-refused")


if __name__ == "__main__":
    unittest.main()
