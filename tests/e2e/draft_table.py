#!/usr/bin/env python3
"""docs/RESOLUTION.md's table of the ARK draft's rules (draft-kunze-ark-43), for the
end-to-end tests (run.sh), read as noid_resolve::draft_table reads it for the Rust tests.

    draft_table.py RESOLUTION.md bindings   ID<TAB>ELEMENT<TAB>VALUE per binding
    draft_table.py RESOLUTION.md rows       PATH|STATUS|LOCATION|BODY per row

PATH is the request as a browser sends it: `%`, space and every non-ASCII byte
%-encoded once, except in the rows of rule 3 "at its own URL" (sent as written).
STATUS and LOCATION are 302 and the target, 200 and `-` for a metadata page (BODY is then
the `where:` line the page must hold: the id as `noid bind`'s identifier gate stores it,
`ark:/NAAN/...`, written as ANVL writes a value), or 404 and `-`.
"""

import sys


def section(doc):
    start = doc.index("#### The draft's rules on every path")
    return doc[start:doc.index("<!-- draft rules: end -->", start)]


def bindings(s):
    block = s[s.index("```text\n") + 8:]
    return [line.split() for line in block[:block.index("```")].splitlines()]


def http_path(rule, request):
    if rule.startswith("3 at its own URL"):
        return request
    out = []
    for c in request.encode():
        if c == ord("%") or c == ord(" ") or c > 127:
            out.append("%%%02X" % c)
        else:
            out.append(chr(c))
    return "".join(out)


def rows(s):
    for line in s.splitlines():
        if not (line.startswith("| ") and "`" in line):
            continue
        cells = [c.strip() for c in line.split("|")]
        rule, request, answer = cells[1], cells[3].strip("`"), cells[4].strip("`")
        path = "/" + http_path(rule, request)
        if answer.startswith("302 "):
            yield f"{path}|302|{answer[4:]}|"
        elif answer.startswith("metadata of "):
            # bound through `noid bind`, whose identifier gate stores `ark:/NAAN/...`
            bound = answer[len("metadata of "):]
            if bound.startswith("ark:") and not bound.startswith("ark:/"):
                bound = "ark:/" + bound[4:]
            where = bound.replace("%", "%25")
            yield f"{path}|200|-|where: {where}"
        elif answer == "404":
            yield f"{path}|404|-|"
        else:
            sys.exit(f"an answer the table does not define: {answer}")


def main():
    doc, what = sys.argv[1], sys.argv[2]
    with open(doc, encoding="utf-8") as f:
        s = section(f.read())
    if what == "bindings":
        for b in bindings(s):
            print("\t".join(b))
    else:
        for r in rows(s):
            print(r)


if __name__ == "__main__":
    main()
