"""gossipcert.children.Child: messages read whole even when a signal comes while one is read."""

from __future__ import annotations

import os
import signal
import struct
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

import pytest

from gossipcert.children import Child


@pytest.mark.parametrize("taken_by", ["this thread", "another thread"])
def test_a_signal_while_a_message_is_read_loses_nothing(taken_by: str) -> None:
    # SIGINT arrives just as a message has been read from the pipe (taken by this thread,
    # which blocks it, or by another, whose handler Python runs here all the same): it is
    # raised once the message is kept, and the next read returns it, then the outcome
    idle = threading.Event()
    other = threading.Thread(target=idle.wait)
    other.start()
    child = Child(lambda send: send(("message", "state")) or "done", ())
    real = child.conn.recv
    signalled: list[bool] = []

    def recv() -> Any:
        message = real()
        if not signalled:
            signalled.append(True)
            if taken_by == "this thread":
                os.kill(os.getpid(), signal.SIGINT)
            else:
                signal.pthread_kill(other.ident or 0, signal.SIGINT)
                time.sleep(0.05)  # bytecodes: Python's handler would run within them
        return message

    child.conn.recv = recv  # type: ignore[method-assign]
    got: list[Any] = []
    try:
        with pytest.raises(KeyboardInterrupt):
            while not child.done:
                got += child.messages(None)
        assert got == []
        while not child.done:
            got += child.messages(None)
    finally:
        child.reap()
        idle.set()
        other.join()
    assert got == [("message", "state"), ("result", "done")]


def _half_a_message(send: Any) -> None:  # pragma: no cover - in the child
    writer = next(
        cell.cell_contents
        for cell in send.__closure__
        if isinstance(cell.cell_contents, Connection)
    )
    os.write(writer.fileno(), struct.pack("!i", 256) + b"partial")  # 7 bytes of 256
    os._exit(9)


def test_a_child_killed_inside_a_message_ends_its_pipe() -> None:
    # the child dies having written half a message: its pipe ends, nothing is made up
    child = Child(_half_a_message, ())
    got: list[Any] = []
    try:
        while not child.done:
            got += child.messages(None)
    finally:
        child.reap()
    assert got == []
