# SPDX-License-Identifier: GPL-2.0
"""How latscope-report writes every file it writes: whole, through a new
temporary beside it, as the CLI writes its own (written_whole())."""

import contextlib
import os
import secrets


def read_umask(status="/proc/self/status"):
    """The umask, read without setting it (os.umask() would, for the whole
    process); 0o077 without a Umask: line (no /proc, before Linux 4.7)."""
    try:
        with open(status, encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8) & 0o777
    except (OSError, ValueError, IndexError):
        pass
    return 0o077


@contextlib.contextmanager
def written_whole(path, binary=False):
    """A file to write @path with, as the CLI writes its files
    (docs/design/cli.md, "Files latscope creates"): a new temporary in
    @path's directory (O_EXCL|O_NOFOLLOW, 0600, a random name), its mode
    0666 less the umask by fchmod(), fsync()ed, then renamed over @path if
    its name still holds it; a symlink at @path is replaced, never
    followed, and no other file is opened or chmod()ed."""
    head, base = os.path.split(path)
    dfd = os.open(head or ".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for _ in range(16):
            name = f".{base}.{secrets.token_hex(8)}"
            try:
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                             os.O_CLOEXEC, 0o600, dir_fd=dfd)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(17, "no free temporary name beside it", path)
        own = os.fstat(fd)

        def ours():
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except OSError:
                return False
            return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)
        try:
            os.fchmod(fd, 0o666 & ~read_umask())
            with os.fdopen(fd, "wb" if binary else "w",
                           encoding=None if binary else "utf-8") as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            if not ours():
                raise PermissionError(1, "another user replaced its temporary file", path)
            os.rename(name, base, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            if ours():
                os.unlink(name, dir_fd=dfd)
            raise
    finally:
        os.close(dfd)
