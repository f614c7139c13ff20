"""The harness itself: its checks fail on what they must refuse (a page with an
accessibility violation, a wrong text, a page too wide for a phone) and pass on a good
page; its wait for the next page waits; the servers it starts answer."""

import os
import unittest
import urllib.request
from urllib.parse import quote

import harness

GOOD = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>good</title></head>
<body><main><h1>A heading</h1><p id="p">Some <b>plain</b> text.</p></main></body></html>"""

# An image without alternative text, and grey on white (2.3:1): WCAG 2.0 A and AA.
BAD = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>bad</title></head>
<body><main><h1>A heading</h1><img src="data:," width="10" height="10">
<p style="color:#aaa;background:#fff">faint</p></main></body></html>"""

WIDE = GOOD.replace("<h1>", '<div style="width:900px">wide</div><h1>')


def page(html):
    return "data:text/html;charset=utf-8," + quote(html)


def setUpModule():
    global DRIVER
    DRIVER = harness.browser()


class Checks(unittest.TestCase):
    def test_axe_passes_a_good_page(self):
        DRIVER.get(page(GOOD))
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)

    def test_axe_names_each_violation(self):
        DRIVER.get(page(BAD))
        with self.assertRaises(AssertionError) as e:
            harness.check_axe(DRIVER)
        self.assertIn("image-alt (critical)", str(e.exception))
        self.assertIn("color-contrast (serious)", str(e.exception))

    def test_axe_missing_fails(self):
        DRIVER.get(page(GOOD))
        old = os.environ.get("NOID_AXE_JS")
        os.environ["NOID_AXE_JS"] = "/nonexistent/axe.min.js"
        try:
            with self.assertRaises(AssertionError) as e:
                harness.check_axe(DRIVER)
            self.assertIn("axe-core 4.10.3 missing at /nonexistent/axe.min.js", str(e.exception))
        finally:
            if old is None:
                del os.environ["NOID_AXE_JS"]
            else:
                os.environ["NOID_AXE_JS"] = old

    def test_replaced_waits_for_the_next_page(self):
        from selenium.webdriver.common.by import By

        DRIVER.get(page(GOOD))
        old = DRIVER.find_element(By.TAG_NAME, "html")
        self.assertFalse(harness.replaced(old)(DRIVER), "the same page is not replaced")
        DRIVER.get(page(WIDE))
        self.assertTrue(harness.replaced(old)(DRIVER))

    def test_exact_text(self):
        DRIVER.get(page(GOOD))
        harness.assert_text(DRIVER, "#p", "Some plain text.")
        with self.assertRaises(AssertionError):
            harness.assert_text(DRIVER, "#p", "Some plain text")
        with self.assertRaises(AssertionError):
            harness.assert_text(DRIVER, "p, h1", "Some plain text.")
        harness.assert_texts(DRIVER, "main > *", ["A heading", "Some plain text."])
        harness.assert_absent(DRIVER, "img")

    def test_too_wide_for_a_phone(self):
        DRIVER.get(page(WIDE))
        with self.assertRaises(AssertionError) as e:
            harness.assert_fits(DRIVER)
        self.assertIn("too wide at 360px", str(e.exception))

    def test_screenshot_kept(self):
        DRIVER.get(page(GOOD))
        path = harness.screenshot(DRIVER, "harness-good")
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


class Servers(unittest.TestCase):
    def test_noidr_answers(self):
        minter = harness.Minter()
        minter.bind("13030/x", "_t", "https://example.org/x")
        noidr = harness.Noidr(minter)
        with urllib.request.urlopen(noidr.url("/healthz")) as r:
            self.assertEqual(r.read(), b"ok\n")
        noidr.stop()
        self.assertIn("HTTP on 127.0.0.1:", noidr.log())

    def test_noid_serve_answers(self):
        api = harness.Api()
        api.populator("sam", "sam", "secret", minter=("fk4.reedeedk", "long", "99999",
                                                       "example.org", "test"))
        serve = api.start()
        req = urllib.request.Request(serve.url("/a/sam/m/ark/99999/fk4?mint%201"),
                                     method="POST")
        req.add_header("Authorization", "Basic c2FtOnNlY3JldA==")  # sam:secret
        with urllib.request.urlopen(req) as r:
            # the first id of a .reedeedk template, as in the noid manual (13030/f54x54g11)
            self.assertEqual(r.read(), b"s: 99999/fk44x54g1g\n\nnog-status: 0\n")
        serve.stop()


if __name__ == "__main__":
    unittest.main()
