#!/usr/bin/python3
"""A FUSE pass-through file system that stalls: `stallfs.py ROOT MOUNTPOINT PAUSE`.

Mounts ROOT at MOUNTPOINT (in the foreground, until unmounted). While the file PAUSE
exists, every operation waits, as on a hung disk or a network file system gone away;
when it is removed, they go on. Table files (*.sst) are opened with direct I/O, so a
read of a block that RocksDB has not cached reaches this process (and stalls) instead
of being served from the kernel's page cache. Used by noidr's deadline tests (Debian's
python3-fusepy, which imports as `fusepy`).
"""
import errno
import os
import sys
import time

from fusepy import FUSE, FuseOSError, Operations


class Stall(Operations):
    def __init__(self, root, pause):
        self.root = root
        self.pause = pause

    def _path(self, path):
        while os.path.exists(self.pause):
            time.sleep(0.01)
        return os.path.join(self.root, path.lstrip("/"))

    def access(self, path, mode):
        if not os.access(self._path(path), mode):
            raise FuseOSError(errno.EACCES)

    def getattr(self, path, fh=None):
        st = os.lstat(self._path(path))
        keys = ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink",
                "st_size", "st_uid", "st_ino")
        return {k: getattr(st, k) for k in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def statfs(self, path):
        st = os.statvfs(self._path(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree",
                "f_files", "f_flag", "f_frsize", "f_namemax")
        return {k: getattr(st, k) for k in keys}

    def open(self, path, fi):
        fi.fh = os.open(self._path(path), fi.flags)
        fi.direct_io = path.endswith(".sst")
        return 0

    def create(self, path, mode, fi):
        fi.fh = os.open(self._path(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        return 0

    def read(self, path, size, offset, fi):
        self._path(path)
        return os.pread(fi.fh, size, offset)

    def write(self, path, data, offset, fi):
        self._path(path)
        return os.pwrite(fi.fh, data, offset)

    def truncate(self, path, length, fi=None):
        os.truncate(self._path(path), length)

    def flush(self, path, fi):
        return 0

    def release(self, path, fi):
        os.close(fi.fh)
        return 0

    def fsync(self, path, datasync, fi):
        self._path(path)
        os.fsync(fi.fh)
        return 0

    def unlink(self, path):
        os.unlink(self._path(path))

    def rename(self, old, new):
        os.rename(self._path(old), self._path(new))

    def mkdir(self, path, mode):
        os.mkdir(self._path(path), mode)

    def rmdir(self, path):
        os.rmdir(self._path(path))

    def chmod(self, path, mode):
        os.chmod(self._path(path), mode)

    def utimens(self, path, times=None):
        os.utime(self._path(path), times)

    def readlink(self, path):
        return os.readlink(self._path(path))


if __name__ == "__main__":
    root, mountpoint, pause = sys.argv[1:4]
    # STALLFS_ALLOW_OTHER=1 (root only): other users may read the mount too, as the web
    # servers' workers (www-data) do in tests/e2e/modules.sh.
    allow_other = os.environ.get("STALLFS_ALLOW_OTHER") == "1"
    FUSE(Stall(root, pause), mountpoint, foreground=True, raw_fi=True, allow_other=allow_other)
