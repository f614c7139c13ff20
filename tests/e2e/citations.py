#!/usr/bin/env python3
"""Citations by content negotiation, read back by each format's own parser: the
CSL-JSON by citeproc-py (a bibliography rendered in its harvard1 style), BibTeX by
bibtexparser, RIS by rispy, schema.org JSON-LD expanded by pyld (with schema.org's
context as a vocabulary, no network), and the formatted reference compared as text.

    citations.py URL        URL: a resolver's URL of ark:/13030/cite (run.sh binds it)

Prints one "ok"/"FAIL" line per format; exits 1 when any fails. The expected values
are the ones run.sh binds: who "Smith, Jane; Doe, J.", what "Tide gauges 100% & more",
when 2020-05-01, how "(:mtype data) time series", dc.publisher "Example Archive".
"""

import json
import sys
import urllib.request

URL = sys.argv[1]
CITED = "https://n2t.net/ark:/13030/cite"
failed = False


def get(accept):
    req = urllib.request.Request(URL, headers={"Accept": accept})
    opener = urllib.request.build_opener(NoRedirect)
    with opener.open(req, timeout=10) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def check(name, ok, detail):
    global failed
    if ok:
        print(f"ok   - citation {name}")
    else:
        failed = True
        print(f"FAIL - citation {name}: {detail}")


def csl():
    from citeproc import Citation, CitationItem, CitationStylesBibliography
    from citeproc import CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    status, ctype, body = get("application/vnd.citationstyles.csl+json")
    item = json.loads(body)
    source = CiteProcJSON([item])
    style = CitationStylesStyle("harvard1", validate=False)
    bib = CitationStylesBibliography(style, source, formatter.plain)
    bib.register(Citation([CitationItem("ark:/13030/cite")]))
    text = str(bib.bibliography()[0])
    # harvard1 initials the given names (so the names were read as family and given) and
    # cites a dataset without its publisher.
    want = "Smith, J. & Doe, J., 2020. Tide gauges 100% & more. Available at: " + CITED + "."
    check("CSL-JSON (citeproc-py, harvard1)",
          status == 200 and ctype.startswith("application/vnd.citationstyles.csl+json") and text == want,
          f"{status} {ctype} {text!r}")


def bibtex():
    import bibtexparser

    status, ctype, body = get("application/x-bibtex")
    entries = bibtexparser.loads(body).entries
    e = entries[0] if entries else {}
    want = {
        "ENTRYTYPE": "misc",
        "ID": "ark__13030_cite",
        "title": "Tide gauges 100\\% \\& more",
        "author": "Smith, Jane and Doe, J.",
        "year": "2020",
        "publisher": "Example Archive",
        "url": CITED,
        "note": "ark:/13030/cite",
    }
    check("BibTeX (bibtexparser)", status == 200 and len(entries) == 1 and e == want, f"{status} {ctype} {e}")


def ris():
    import rispy

    status, ctype, body = get("application/x-research-info-systems")
    refs = rispy.loads(body)
    r = refs[0] if refs else {}
    want = {
        "type_of_reference": "DATA",
        "title": "Tide gauges 100% & more",
        "authors": ["Smith, Jane", "Doe, J."],
        "year": "2020",
        "date": "2020-05-01",
        "publisher": "Example Archive",
        "urls": [CITED],
        "id": "ark:/13030/cite",
    }
    check("RIS (rispy)", status == 200 and len(refs) == 1 and r == want, f"{status} {ctype} {r}")


def json_ld():
    from pyld import jsonld

    def loader(url, options=None):
        # schema.org's context, as a vocabulary (the tests have no network).
        return {"contextUrl": None, "documentUrl": url,
                "document": {"@context": {"@vocab": "https://schema.org/"}}}

    status, ctype, body = get("application/ld+json")
    doc = json.loads(body)
    expanded = jsonld.expand(doc, {"documentLoader": loader})
    node = expanded[0] if expanded else {}
    s = "https://schema.org/"
    got = {
        "@id": node.get("@id"),
        "@type": node.get("@type"),
        "name": node.get(s + "name", [{}])[0].get("@value"),
        "datePublished": node.get(s + "datePublished", [{}])[0].get("@value"),
        "authors": [a[s + "name"][0]["@value"] for a in node.get(s + "author", [])],
        "publisher": node.get(s + "publisher", [{}])[0].get(s + "name", [{}])[0].get("@value"),
    }
    want = {
        "@id": CITED,
        "@type": [s + "Dataset"],
        "name": "Tide gauges 100% & more",
        "datePublished": "2020-05-01",
        "authors": ["Smith, Jane", "Doe, J."],
        "publisher": "Example Archive",
    }
    check("JSON-LD (pyld)", status == 200 and got == want, f"{status} {ctype} {got}")


def bibliography():
    status, ctype, body = get("text/x-bibliography")
    want = "Smith, Jane, & Doe, J. (2020). Tide gauges 100% & more. Example Archive. " + CITED + "\n"
    check("text/x-bibliography", status == 200 and body == want, f"{status} {ctype} {body!r}")


for f in (csl, bibtex, ris, json_ld, bibliography):
    try:
        f()
    except Exception as e:  # a parser's refusal is a failure, said as it is
        check(f.__name__, False, repr(e))
sys.exit(1 if failed else 0)
