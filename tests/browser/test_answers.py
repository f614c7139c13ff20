"""What a reader's browser gets from `noidr --http` on a phone (390 CSS pixels wide) for an
identifier nothing is bound under (a 404 page with the resolve box, to correct a typo)
and for one with several targets (a 300 page, each target a link of its own); and the
front page of a populator's binder (no minter, no `:/naan`), whose NAANs come from its
registry record (issue 41, items 6 and 7). Each page is checked by axe-core, must not
be wider than the phone, and is kept as a screenshot. A real bind-only store written
by the real `noid`, one real `noidr`, one browser session; the expected texts are
docs/RESOLUTION.md's "Pages for people", not read back from the code."""

import os
import unittest

from selenium.webdriver.common.by import By

import harness

PHONE = 390
ID = "ark:/13030/f54x54g11"
TYPO = "ark:/13030/f54x54g1l"  # the check character mistyped: nothing bound
TWO = "ark:/13030/f5154dn7k"
# Long enough that, were the list laid out wider than the phone, it would show.
LONG = "/objects/scans/1936/migrant-mother/nipomo-california/negative-number-8b29516/full.tif"


def setUpModule():
    global DRIVER, NOIDR, SITE
    SITE = harness.landing_site()
    binder = harness.Minter()  # a populator's binder: no template, no NAAN recorded
    binder.bind(ID, "_t", f"{SITE}/objects/1")
    # Several targets: one per line of `_t` (docs/RESOLUTION.md).
    binder.bind(TWO, "_t", f"{SITE}/objects/2\n{SITE}{LONG}")
    registry = os.path.join(binder.dir, "registry")
    with open(registry, "w", encoding="utf-8") as f:
        f.write("prefix: ark:/13030\nname: Example Library\nwho: example.org\n")
    NOIDR = harness.Noidr(binder, "--registry", registry)
    DRIVER = harness.browser()
    # Chromium opens no narrower than 500 pixels; resized, it goes down to a phone's.
    DRIVER.set_window_size(PHONE, 900)


class Phone(unittest.TestCase):
    def setUp(self):
        self.assertEqual(DRIVER.execute_script("return window.innerWidth"), PHONE,
                         "the pages are looked at on a phone's width")


class Answers(Phone):
    def test_1_unknown_identifier(self):
        DRIVER.get(NOIDR.url("/" + TYPO))
        self.assertEqual(DRIVER.title, "Not found — noid resolver")
        harness.assert_text(DRIVER, "h1", "Not found")
        harness.assert_text(
            DRIVER, "main > p:first-of-type",
            f"Nothing is bound under {TYPO} on this resolver. Check it for a typing "
            "mistake, or look up another identifier:")
        box = DRIVER.find_element(By.ID, "id")
        self.assertEqual(box.get_attribute("value"), TYPO)
        harness.assert_texts(DRIVER, "header a", ["noid resolver", "ARK service description"])
        self.assertEqual(DRIVER.find_element(By.LINK_TEXT, "ARK service description")
                         .get_attribute("href"), NOIDR.url("/-/ark"))
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER, PHONE)
        harness.full_screenshot(DRIVER, "not-found-phone")
        # The box corrects the typo and resolves.
        box.clear()
        box.send_keys(ID)
        DRIVER.find_element(By.CSS_SELECTOR, "button[value=resolve]").click()
        harness.wait_url(DRIVER, f"{SITE}/objects/1")
        harness.assert_text(DRIVER, "h1", "landed on /objects/1")

    def test_2_several_targets(self):
        DRIVER.get(NOIDR.url("/" + TWO))
        harness.assert_text(DRIVER, "h1", TWO)
        harness.assert_text(DRIVER, "main > p", "This identifier has 2 targets. Choose one:")
        links = DRIVER.find_elements(By.CSS_SELECTOR, "main ul.targets li a")
        self.assertEqual([(a.text, a.get_attribute("href")) for a in links], [
            (f"{SITE}/objects/2", f"{SITE}/objects/2"),
            (f"{SITE}{LONG}", f"{SITE}{LONG}"),
        ])
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER, PHONE)
        harness.full_screenshot(DRIVER, "several-targets-phone")
        links[1].click()
        harness.wait_url(DRIVER, f"{SITE}{LONG}")
        harness.assert_text(DRIVER, "h1", f"landed on {LONG}")

    def test_3_metadata_page_lists_the_targets(self):
        DRIVER.get(NOIDR.url(f"/{TWO}?info"))
        harness.assert_texts(DRIVER, "main h2", ["Kernel metadata", "Targets", "Standing"])
        links = DRIVER.find_elements(By.CSS_SELECTOR, "main ul.targets li a")
        self.assertEqual([a.get_attribute("href") for a in links],
                         [f"{SITE}/objects/2", f"{SITE}{LONG}"])
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER, PHONE)

    def test_4_front_page_of_a_populators_binder(self):
        DRIVER.get(NOIDR.url("/"))
        harness.assert_texts(DRIVER, "main h2", ["NAANs served", "Inflections"])
        harness.assert_texts(DRIVER, "main h2 + ul li", ["ark:/13030"])
        self.assertEqual(DRIVER.find_element(By.LINK_TEXT, "ark:/13030").get_attribute("href"),
                         NOIDR.url("/ark:/13030"))
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER, PHONE)
        harness.full_screenshot(DRIVER, "front-page-binder-phone")


if __name__ == "__main__":
    unittest.main()
