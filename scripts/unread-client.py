#!/usr/bin/env python3
"""How long a latmon client that stops reading goes unseen by TCP.

Over loopback only (127.0.0.1): a server sends 24-byte records (the size
of a latmon data record), one per TCP segment, to a peer that connected
and never reads, until a send would wait or SECONDS pass. It prints how
many records went out, and the peer's advertised window (TCP_INFO
tcpi_snd_wnd, Linux 5.4 and later) at the start, at the first record
that lowered it, and at the end. Each record is one second of a latmon
run, so the count is a lower bound, in seconds, for how long the monitor
keeps serving a client that reads nothing.

usage: scripts/unread-client.py [SECONDS]   (default 240)
"""
import socket
import struct
import sys
import time

TCPI_SND_WND = 228      # offset of tcpi_snd_wnd in struct tcp_info


def window(sock):
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return struct.unpack_from("I", info, TCPI_SND_WND)[0]


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 240.0
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        peer = socket.create_connection(srv.getsockname())   # never reads
        sock, _ = srv.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        start = window(sock)
        sent, fell, waited = 0, None, False
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                sock.send(b"x" * 24)
            except BlockingIOError:
                waited = True
                break
            sent += 1
            if fell is None and window(sock) < start:
                fell = (sent, window(sock))
            time.sleep(0.001)
        print(f"records sent: {sent} in {seconds:g} s; a send waited: {'yes' if waited else 'no'}")
        print(f"peer's window: {start} at the start, "
              f"{'first lower at record %d (%d)' % fell if fell else 'never lower'}, "
              f"{window(sock)} at the end")
        peer.close()
        sock.close()


if __name__ == "__main__":
    main()
