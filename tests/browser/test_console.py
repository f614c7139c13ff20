"""The populator console of `noid serve` (/console/) in a real browser: log in, mint,
bind, edit kernel metadata and see the standing change, browse, purge; a forged form
and another populator's binder refused; axe-core clean on every console page, and a
screenshot of each (docs-console-*.png are the ones copied to docs/images/).

Expected values come from elsewhere than the console: identifiers from the `noid` CLI
minting an identical minter, bindings read back with `noid get`.
"""

import os
import subprocess
import tempfile
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

import harness

MINTER = ("fk4.reedeedk", "long", "99999", "example.org", "test")


class Console(harness.ConsolePages, unittest.TestCase):
    """One browser session through the console, in order (test_1 … test_7)."""

    @classmethod
    def setUpClass(cls):
        cls.api = harness.Api()
        cls.sam = cls.api.populator("sam", "sam", "secret", minter=MINTER)
        cls.other = cls.api.populator("other", "olga", "pw")
        cls.server = cls.api.start()
        cls.driver = harness.browser()
        twin = harness.Minter(*MINTER)
        cls.expected = twin.noid("mint", "3").split()
        cls.expected = [w for w in cls.expected if w != "id:"]

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def click(self, text):
        """Clicks the button `text` and waits for the page it loads."""
        self.submit(self.driver.find_element(By.XPATH, f"//button[normalize-space()='{text}']"))

    def submit(self, element):
        """Clicks `element` and waits until the next page has replaced this one."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        element.click()
        WebDriverWait(self.driver, 20).until(harness.replaced(old))

    def page(self, name):
        """The checks every console page passes: axe clean, readable on a phone (no
        sideways scrolling at 360 px), a screenshot."""
        harness.check_axe(self.driver)
        harness.assert_fits(self.driver)
        harness.full_screenshot(self.driver, f"console-{name}")

    def test_1_login(self):
        self.go("/console/")
        harness.assert_text(self.driver, "h1", "Log in")
        self.page("login")
        self.fill("populator", "sam")
        self.fill("login", "sam")
        self.fill("password", "wrong")
        self.click("Log in")
        harness.assert_text(self.driver, ".notice.error",
                            "Login failed: check the populator, login and password.")
        self.page("login-failed")
        self.fill("populator", "sam")
        self.fill("login", "sam")
        self.fill("password", "secret")
        self.click("Log in")
        harness.assert_text(self.driver, "h1", "Binders and minters")
        harness.assert_text(self.driver, ".who", "sam for sam Log out")
        self.page("home")

    def test_2_mint_and_bind(self):
        self.go("/console/p/sam/mint")
        harness.assert_text(self.driver, "h1", "Mint")
        self.page("mint")
        self.fill("n", "3")
        self.fill("target", "https://example.org/$id")
        self.click("Mint")
        harness.assert_text(self.driver, ".notice",
                            "Minted 3 from ark/99999/fk4 and bound their targets.")
        # The POST answered with a redirect to its kept result: reloading mints nothing.
        self.assertRegex(self.driver.current_url, r"/console/p/sam/minted\?n=1$")
        harness.assert_texts(self.driver, "ul.minted li", [f"ark:/{i}" for i in self.expected])
        self.assertEqual(self.driver.find_element(By.ID, "all").get_property("value"),
                         "\n".join(f"ark:/{i}" for i in self.expected))
        self.page("minted")
        harness.full_screenshot(self.driver, "docs-console-minted", width=1000)
        for ident in self.expected:
            self.assertEqual(harness.noid_get(self.sam, f"ark:/{ident}", "_t"),
                             f"https://example.org/{ident}\n")

    def test_3_edit_and_standing(self):
        ident = self.expected[0]
        self.submit(self.driver.find_element(By.LINK_TEXT, f"ark:/{ident}"))
        harness.assert_text(self.driver, "h1", f"ark:/{ident}")
        harness.assert_text(self.driver, "#standing",
                            "Standing: not good: missing who, what, when, how.")
        Select(self.driver.find_element(By.ID, "who-code")).select_by_value("unkn")
        self.fill("what", "A survey of moths")
        self.fill("when", "2024")
        self.fill("how", "textual")
        self.click("Check standing")
        harness.assert_text(self.driver, "#standing",
                            'Standing: not good: how is malformed: no metatype.')
        self.assertEqual(harness.noid_get(self.sam, f"ark:/{ident}", "what"), "\n",
                         "checking writes nothing")
        self.page("identifier-check")
        self.fill("how", "text article")
        self.click("Save")
        harness.assert_text(self.driver, ".notice", "Saved.")
        harness.assert_text(
            self.driver, "#standing",
            "Standing: good (every required kernel element is present and well formed).")
        self.page("identifier")
        harness.full_screenshot(self.driver, "docs-console-identifier", width=1000)
        self.assertEqual(harness.noid_get(self.sam, f"ark:/{ident}", "who"), "(:unkn)\n")
        self.assertEqual(harness.noid_get(self.sam, f"ark:/{ident}", "how"), "text article\n")

    def test_3a_several_targets_and_a_title_survive_a_save(self):
        """Issue 41, item 1, as a curator meets it: an identifier with two targets, a
        title with quotes and commas and a two-line value; saving another field keeps
        each of them byte for byte, and a target that is no URL is refused."""
        ident = "ark:/99999/fk4multi"
        targets = "https://example.org/a\nhttps://example.org/b"
        title = "Migrant \"Mother\", Nipomo, 'Calif.', 1936"
        who = "Lange, Dorothea\nU.S. Resettlement Administration"
        for elem, value in (("_t", targets), ("what", title), ("who", who)):
            subprocess.run([harness.NOID, "-f", self.sam, f"{ident}.set", elem, value],
                           check=True, capture_output=True)
        # Opened in the current ARK specification's spelling: the same record.
        self.go("/console/p/sam/id?id=ark:99999/fk4multi")
        self.assertEqual(self.driver.find_element(By.ID, "_t-0").get_property("value"),
                         "https://example.org/a")
        self.assertEqual(self.driver.find_element(By.ID, "_t-1").get_property("value"),
                         "https://example.org/b")
        self.assertEqual(self.driver.find_element(By.ID, "who").get_property("value"), who)
        self.page("identifier-targets")
        self.fill("when", "1936")
        self.click("Save")
        harness.assert_text(self.driver, ".notice", "Saved.")
        self.assertEqual(harness.noid_get(self.sam, ident, "_t"), targets + "\n")
        self.assertEqual(harness.noid_get(self.sam, ident, "what"), title + "\n")
        self.assertEqual(harness.noid_get(self.sam, ident, "who"), who + "\n")
        self.assertEqual(harness.noid_get(self.sam, ident, "when"), "1936\n")
        # A third target without a scheme: refused with the reason, nothing written.
        self.fill("_t-2", "www.example.edu/x")
        self.click("Save")
        harness.assert_text(
            self.driver, ".notice.error",
            f'Not saved: {ident}: "www.example.edu/x" cannot be a target: a target must be '
            "an absolute URL (https://…) or a stored code (410 reason, 301 URL)")
        self.assertEqual(harness.noid_get(self.sam, ident, "_t"), targets + "\n")

    def test_4_browse(self):
        self.go("/console/p/sam/browse")
        self.fill("prefix", "99999/fk4")
        self.click("Show")
        # The minted three, and test_3a's identifier under the same shoulder.
        harness.assert_texts(self.driver, "ul.ids li",
                             sorted([f"ark:/{i}" for i in self.expected] + ["ark:/99999/fk4multi"]))
        self.page("browse")

    def test_5_forged_forms_refused(self):
        ident = self.expected[1]
        # A form on another site posting to the console: the browser sends no cookie
        # (SameSite=Strict) and the token is not the session's.
        forged = os.path.join(tempfile.mkdtemp(prefix="noid-forged."), "forged.html")
        with open(forged, "w", encoding="utf-8") as f:
            f.write(f"""<!DOCTYPE html><html lang="en"><title>forged</title>
<form method="post" action="{self.server.url('/console/p/sam/id')}">
<input name="csrf" value="{'0' * 64}"><input name="id" value="{ident}">
<input name="_t" value="https://evil.example/"><input name="action" value="save">
<button>go</button></form></html>""")
        self.driver.get("file://" + forged)
        self.submit(self.driver.find_element(By.TAG_NAME, "button"))
        harness.assert_text(self.driver, "h1", "Form refused")
        # The console's own form with its token altered in the page.
        self.go(f"/console/p/sam/id?id={ident}")
        self.driver.execute_script(
            "document.querySelector('main input[name=csrf]').value = '1'.repeat(64)")
        self.fill("_t-0", "https://evil.example/")
        self.click("Save")
        harness.assert_text(self.driver, "h1", "Form refused")
        harness.assert_text(self.driver, ".notice.error",
                            "This form is not from your session (it may have expired). "
                            "Go back, reload the page and try again.")
        self.page("forged")
        self.assertEqual(harness.noid_get(self.sam, f"ark:/{ident}", "_t"),
                         f"https://example.org/{ident}\n")

    def test_6_another_populators_binder_refused(self):
        self.go("/console/p/other/browse")
        harness.assert_text(self.driver, "h1", "Not your populator")
        self.page("not-yours")
        self.go("/console/p/sam/")
        harness.assert_text(self.driver, "h1", "Binders and minters")

    def test_7_purge_and_logout(self):
        ident = self.expected[2]
        self.go(f"/console/p/sam/id?id={ident}")
        self.submit(self.driver.find_element(By.PARTIAL_LINK_TEXT, "Purge this identifier"))
        harness.assert_text(self.driver, "h1", "Purge")
        self.page("purge")
        self.fill("confirm", ident)
        self.click(f"Purge {ident}")
        harness.assert_text(self.driver, ".notice", f"Purged {ident}.")
        self.assertEqual(harness.noid_get(self.sam, f"ark:/{ident}", "_t"), "\n")
        self.click("Log out")
        harness.assert_text(self.driver, "h1", "Log in")
        self.go("/console/p/sam/")
        harness.assert_text(self.driver, "h1", "Log in")


if __name__ == "__main__":
    unittest.main()
