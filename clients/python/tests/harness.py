"""A real toold for the tests: built once into a temporary directory (or
TOOLD_BIN), started on a free loopback port; and a TCP proxy whose
connections a test can cut, as a load balancer or a network fault would."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_built = {}


def toold_binary() -> str:
    if os.environ.get("TOOLD_BIN"):
        return os.environ["TOOLD_BIN"]
    if "path" not in _built:
        d = tempfile.mkdtemp(prefix="toold-pytest-bin-")
        # The sandboxed commands run as another user, from toold-sandbox here.
        os.chmod(d, 0o755)
        subprocess.run(["go", "build", "-o", d, "./cmd/toold", "./cmd/toold-sandbox"], cwd=REPO, check=True)
        _built["path"] = os.path.join(d, "toold")
    return _built["path"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(addr: str, proc: subprocess.Popen, log_path: str) -> None:
    host, port = addr.rsplit(":", 1)
    while True:
        if proc.poll() is not None:
            with open(log_path) as f:
                raise RuntimeError(f"toold exited with {proc.returncode}:\n{f.read()}")
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)


class Toold:
    def __init__(self, *extra: str):
        self.dir = tempfile.mkdtemp(prefix="toold-pytest-")
        os.chmod(self.dir, 0o711)  # the sandbox user reaches the workspaces
        self.root = os.path.join(self.dir, "workspaces")
        self.addr = f"127.0.0.1:{free_port()}"
        self.log_path = os.path.join(self.dir, "toold.log")
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [toold_binary(), "--listen", self.addr, "--workspace-root", self.root, "--log-level", "debug", *extra],
            stdout=self._log, stderr=self._log, stdin=subprocess.DEVNULL)
        wait_listening(self.addr, self.proc, self.log_path)

    def logs(self) -> str:
        with open(self.log_path) as f:
            return f.read()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self._log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Proxy:
    """Forwards 127.0.0.1:port to target; cut() closes every open connection
    (new ones are still accepted)."""

    def __init__(self, target: str, refuse: int = 0):
        # The first refuse connections are closed at once, as by a server
        # that is not up yet.
        self.refuse = refuse
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.addr = "127.0.0.1:%d" % self.sock.getsockname()[1]
        self.lock = threading.Lock()
        self.conns = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if self.refuse > 0:
                self.refuse -= 1
                c.close()
                continue
            try:
                u = socket.create_connection(self.target)
            except OSError:
                c.close()
                continue
            with self.lock:
                self.conns += [c, u]
                self.accepted += 1
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.cut()
        self.sock.close()


class TooldTestCase(unittest.TestCase):
    """One toold per test class."""

    toold_args: tuple = ()

    @classmethod
    def setUpClass(cls):
        cls.toold = Toold(*cls.toold_args)

    @classmethod
    def tearDownClass(cls):
        cls.toold.stop()
