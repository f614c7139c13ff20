"""What the instruction benchmarks send noidr (scripts/bench-instructions.sh,
scripts/bench-counts-costs.sh), in one place: the identifiers the example bench_noidr
loads, the same pseudo-random choice of them in every run, and pipelined HTTP requests
whose answers must all be redirects."""

import socket
import sys

DIGITS = "0123456789bcdfghjkmnpqrstvwxz"
MASK = 2**64 - 1


def ident(i):
    """The i-th identifier `bench_noidr load` binds: ark:/13030/fk4 and 6 extended digits."""
    s = ""
    for _ in range(6):
        s = DIGITS[i % 29] + s
        i //= 29
    return "ark:/13030/fk4" + s


class Picker:
    """A xorshift sequence, the same in every run, so that runs compare the same requests."""

    def __init__(self):
        self.state = 0x9E3779B97F4A7C15

    def pick(self, n):
        """The next number below n."""
        s = self.state
        s ^= (s << 13) & MASK
        s ^= s >> 7
        s ^= (s << 17) & MASK
        self.state = s
        return s % n


def redirects(sock_path, paths, headers=b""):
    """Sends `GET path` for each of `paths` on one connection to the unix socket, 100 at a
    time pipelined, with `headers` (each ending in CRLF) after Host; exits with a message
    unless every answer is a 302, or the count would measure the wrong path."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    buf = b""
    for i in range(0, len(paths), 100):
        batch = paths[i:i + 100]
        s.sendall(b"".join(b"GET %s HTTP/1.1\r\nHost: b\r\n%s\r\n" % (p.encode(), headers)
                           for p in batch))
        for _ in batch:
            while b"\r\n\r\n" not in buf:
                buf += s.recv(65536)
            head, buf = buf.split(b"\r\n\r\n", 1)  # a redirect has no body
            if not head.startswith(b"HTTP/1.1 302 "):
                sys.exit(f"http: an answer is not a 302: {head[:80]!r}")
