"""Cross-site writes through a browser's cached Basic credentials (issue 42, item 2), in
a real Chromium against the real `noid serve`.

The attack: a curator logs in to the console with HTTP Basic (`/console/basic/sam`),
so the browser keeps the credentials; a page of another site then sends the browser
to `/a/sam/b?x.set who pwned`. Before the fix the API answered `401` in the realm the
browser had credentials for, the browser repeated the request with them, and the
binding was written as sam. Now the API refuses the request as cross-site before it
authenticates it, and the console's credentials are kept under a realm of their own.

What is expected comes from elsewhere than the server: the binding is read back with
`noid get`, and the refusal's text is docs/SECURITY.md's.
"""

import os
import subprocess
import unittest
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import harness

REFUSED = (
    "error: 403 cross-site request refused: a page of another site made your browser send "
    "this request. The API acts only on requests that programs (curl, scripts) or its own "
    "site's pages send; to change bindings in a browser, use the console (/console/)."
)


def noid_get(binder, ident, elem):
    """What `noid -f BINDER get ID ELEM` prints (an empty line for none)."""
    return subprocess.run([harness.NOID, "-f", binder, "get", ident, elem], capture_output=True,
                          text=True, check=False).stdout


class CrossSite(unittest.TestCase):
    """One browser: a Basic login to the console, then another site's link."""

    @classmethod
    def setUpClass(cls):
        cls.api = harness.Api()
        cls.sam = cls.api.populator("sam", "sam", "secret")
        cls.server = cls.api.start()
        cls.driver = harness.browser()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_another_sites_link_does_not_write(self):
        d = self.driver
        host = self.server.base[len("http://"):]
        # The console's Basic login, credentials in the URL: the browser keeps them.
        d.get(f"http://sam:secret@{host}/console/basic/sam")
        # (Chromium keeps the credentials in the URL it shows after the redirect.)
        harness.wait_url(d, f"http://sam:secret@{host}/console/p/sam/")
        # A page of another site (a data: URL: an opaque origin, cross-site to every
        # server) with a link that writes over the API.
        target = self.server.url("/a/sam/b?" + urllib.parse.quote("x.set who pwned"))
        page = f"<!DOCTYPE html><title>elsewhere</title><a id='go' href='{target}'>go</a>"
        d.get("data:text/html," + urllib.parse.quote(page))
        old = d.find_element(By.TAG_NAME, "html")
        d.find_element(By.ID, "go").click()
        harness.wait_url(d, target)
        WebDriverWait(d, 10).until(harness.replaced(old))
        self.assertEqual(d.find_element(By.TAG_NAME, "body").text, REFUSED)
        harness.screenshot(d, "cross-site-refused")
        self.assertEqual(noid_get(self.sam, "x", "who"), "\n")
        self.assertFalse(os.path.exists(os.path.join(self.sam, "write.log")))
        self.assertIn("cross-site request refused (Sec-Fetch-Site: cross-site): /a/sam/b",
                      self.server.log())


if __name__ == "__main__":
    unittest.main()
