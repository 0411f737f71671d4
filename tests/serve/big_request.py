#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Peers that send the exporter a request too big for its memory (8 kB a
connection), loopback only. tests/serve/run.sh runs them.

slow PORT: one 20 kB URL from 127.0.0.1, sent 1 kB every 10 ms (as nc in a
slow VM sends it), then the answer read to its end. Prints "sent all" or
why not, then the answer's status line. A server that closes the socket
while the peer still sends kills the sending (EPIPE) and may reset the
answer away; one that lingers takes all of it.

many SRC PORT N SECS: N connections from SRC (127.x.x.x), each sending
9 kB of URL (its 414 and the server's close follow), then held open
without reading for SECS seconds. Prints "sent N".
"""
import socket
import sys
import time


def slow(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    req = b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    try:
        for i in range(0, len(req), 1024):
            s.sendall(req[i:i + 1024])
            time.sleep(0.01)
        s.shutdown(socket.SHUT_WR)
        print("sent all")
    except OSError as e:
        print("sending:", e)
    data = b""
    try:
        while True:
            d = s.recv(4096)
            if not d:
                break
            data += d
    except OSError as e:
        print("reading:", e)
    print(data.split(b"\r\n")[0].decode(errors="replace"))


def many(src, port, n, secs):
    if not src.startswith("127."):
        sys.exit("big_request.py: loopback only, not " + src)
    held = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5,
                                     source_address=(src, 0))
        try:
            s.sendall(b"GET /" + b"a" * 9000)
        except OSError:
            pass
        held.append(s)
    print("sent", n)
    sys.stdout.flush()
    time.sleep(secs)
    for s in held:
        s.close()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "slow":
        slow(int(sys.argv[2]))
    elif len(sys.argv) == 6 and sys.argv[1] == "many":
        many(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        sys.exit("usage: big_request.py slow PORT | many SRC PORT N SECS")


if __name__ == "__main__":
    main()
