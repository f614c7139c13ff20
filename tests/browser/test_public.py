"""The public pages of `noidr --http` in headless Chromium: the front page's box resolves
and shows, an identifier's page explains its kernel, a withdrawn identifier's page names
its successor, a prefix's record page links its providers and the records below; each
page is checked by axe-core (WCAG 2.0/2.1 A and AA), fits a phone's width, and is kept
as a screenshot. One real minter written by the real `noid`, one real `noidr`, one
browser session; the texts expected are the noid manual's and N2T's words
(docs/RESOLUTION.md), not read back from the code."""

import os
import unittest

from selenium.webdriver.common.by import By

import harness

ID = "ark:/13030/f54x54g11"  # the first id of f5.reedeedk under 13030 (the noid manual)


def setUpModule():
    global DRIVER, NOIDR, SITE
    SITE = harness.landing_site()
    minter = harness.Minter("f5.reedeedk", "long", "13030", "example.org", "test")
    minted = minter.noid("mint", "2").split()
    assert minted == ["id:", "13030/f54x54g11", "id:", "13030/f5154dn7k"], minted
    minter.bulk([
        f"bind set 13030/f54x54g11 _t {SITE}/objects/1",
        "bind set 13030/f54x54g11 who '(:unkn) Anonymous'",
        "bind set 13030/f54x54g11 what 'Letters & drafts'",
        "bind set 13030/f54x54g11 when 2024",
        "bind set 13030/f54x54g11 how '(:mtype text set) correspondence'",
        "bind set 13030/f54x54g11 peek '(:at) https://example.org/peek.png'",
        "bind set 13030/f54x54g11 note 'kept in box 4'",
        "bind set 13030/f5154dn7k _t '410 withdrawn in 2024'",
        "bind set 13030/f5154dn7k who 'A. Writer'",
        "bind set 13030/f5154dn7k successor ark:/13030/f54x54g11",
    ])
    registry = os.path.join(minter.dir, "registry")
    with open(registry, "w", encoding="utf-8") as f:
        f.write("prefix: ark:/13030\nname: Example Library\nwho: example.org\n"
                "provider: main https://example.org/ark:/$id\n"
                "provider: mirror https://mirror.example.net/ark:/$id\n\n"
                "prefix: ark:/13030/f5\nname: test shoulder\n")
    NOIDR = harness.Noidr(minter, "--registry", registry)
    DRIVER = harness.browser()


def main_texts():
    """The rendered text of each child of `main`, in order."""
    return [e.text for e in DRIVER.find_elements(By.CSS_SELECTOR, "main > *")]


class Pages(unittest.TestCase):
    def test_1_front_page_resolves_and_shows(self):
        DRIVER.get(NOIDR.url("/"))
        self.assertEqual(DRIVER.title, "Resolve an identifier — noid resolver")
        harness.assert_text(DRIVER, "h1", "Resolve an identifier")
        harness.assert_texts(DRIVER, "main h2", ["NAANs served", "Inflections"])
        harness.assert_texts(DRIVER, "main ul li", ["ark:/13030"])
        self.assertEqual(
            DRIVER.find_element(By.CSS_SELECTOR, "header").value_of_css_property("background-color"),
            "rgba(29, 53, 87, 1)", "the stylesheet /-/noid.css is applied")
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.full_screenshot(DRIVER, "front-page")
        harness.full_screenshot(DRIVER, "front-page-phone", width=390)
        # Resolve: the box sends the browser to the identifier, which redirects.
        box = DRIVER.find_element(By.ID, "id")
        box.send_keys(ID)
        DRIVER.find_element(By.CSS_SELECTOR, "button[value=resolve]").click()
        harness.wait_url(DRIVER, f"{SITE}/objects/1")
        harness.assert_text(DRIVER, "h1", "landed on /objects/1")
        # Show: the metadata page.
        DRIVER.get(NOIDR.url("/"))
        DRIVER.find_element(By.ID, "id").send_keys(" " + ID + " ")
        DRIVER.find_element(By.CSS_SELECTOR, "button[value=info]").click()
        harness.wait_url(DRIVER, NOIDR.url(f"/{ID}?info"))
        harness.assert_text(DRIVER, "h1", ID)

    def test_2_identifier_page(self):
        DRIVER.get(NOIDR.url(f"/{ID}?info"))
        harness.assert_text(DRIVER, "h1", ID)
        harness.assert_texts(DRIVER, "main h2", [
            "Kernel metadata", "Other elements", "Target", "Standing", "Providers"])
        # Each row: the element, what it says (ERC's words), the value, what a reserved
        # code or metatype means (N2T's words), one a line as rendered.
        harness.assert_texts(DRIVER, "main table tr", [
            "who\na responsible person or party\nAnonymous\n"
            "(:unkn) known to be unknown (e.g., Anonymous, Inconnue)",
            "what\na name or other human-oriented identifier\nLetters & drafts",
            "when\na date important in the object's lifecycle\n2024",
            "where\na location or machine-oriented identifier\n" + ID,
            "how\na metatype and resource type\ncorrespondence\nmetatype: text set",
            "peek\na small preview of the object\nhttps://example.org/peek.png\n"
            "(:at) present value is an indirect reference to the real value",
            "note kept in box 4",
        ])
        link = DRIVER.find_element(By.LINK_TEXT, "https://example.org/peek.png")
        self.assertEqual(link.get_attribute("href"), "https://example.org/peek.png")
        standing = main_texts()[main_texts().index("Standing") + 1]
        self.assertEqual(standing,
                         "good: every required kernel element is bound and well formed.")
        self.assertTrue(any(t.startswith("Last modified: ") and t.endswith(" GMT")
                            for t in main_texts()), main_texts())
        harness.assert_texts(DRIVER, "main h2:last-of-type + ul li", [
            "main: https://example.org/ark:/13030/f54x54g11 — up, primary",
            "mirror: https://mirror.example.net/ark:/13030/f54x54g11 — up",
        ])
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.full_screenshot(DRIVER, "identifier")
        # The brief inflection shows the kernel only.
        DRIVER.get(NOIDR.url(f"/{ID}?"))
        self.assertNotIn("Other elements", main_texts())

    def test_3_withdrawn_page(self):
        DRIVER.get(NOIDR.url("/ark:/13030/f5154dn7k"))
        harness.assert_text(DRIVER, "h1", "ark:/13030/f5154dn7k")
        harness.assert_text(DRIVER, ".withdrawn",
                            "Withdrawn: withdrawn in 2024\nSuccessor: " + ID)
        succ = DRIVER.find_element(By.CSS_SELECTOR, ".withdrawn a")
        self.assertEqual(succ.get_attribute("href"), NOIDR.url("/" + ID))
        harness.assert_texts(DRIVER, "main h2", ["Kernel metadata", "Standing", "Providers"])
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.full_screenshot(DRIVER, "withdrawn")
        succ.click()
        harness.wait_url(DRIVER, f"{SITE}/objects/1")

    def test_4_record_page(self):
        DRIVER.get(NOIDR.url("/ark:/13030"))
        harness.assert_text(DRIVER, "h1", "ark:/13030")
        harness.assert_texts(DRIVER, "main table tr", [
            "level naan", "name Example Library", "who example.org"])
        harness.assert_texts(DRIVER, "main h2", ["Providers", "Records below"])
        harness.assert_texts(DRIVER, "main ul li", [
            "main: https://example.org/ark:/$id, primary",
            "mirror: https://mirror.example.net/ark:/$id",
            "ark:/13030/f5: test shoulder",
        ])
        self.assertEqual(
            DRIVER.find_element(By.LINK_TEXT, "https://mirror.example.net/ark:/$id")
            .get_attribute("href"), "https://mirror.example.net/")
        harness.check_axe(DRIVER)
        harness.assert_fits(DRIVER)
        harness.full_screenshot(DRIVER, "record")
        DRIVER.find_element(By.LINK_TEXT, "ark:/13030/f5").click()
        harness.wait_url(DRIVER, NOIDR.url("/ark:/13030/f5"))
        harness.assert_text(DRIVER, "h1", "ark:/13030/f5")

    def test_5_provider_list(self):
        DRIVER.get(NOIDR.url(f"/*/{ID}"))
        harness.assert_text(DRIVER, "h1", ID)
        harness.assert_texts(DRIVER, "main ul li", [
            "main: https://example.org/ark:/13030/f54x54g11 — up, primary",
            "mirror: https://mirror.example.net/ark:/13030/f54x54g11 — up",
        ])
        harness.check_axe(DRIVER)
        harness.screenshot(DRIVER, "providers")


if __name__ == "__main__":
    unittest.main()
