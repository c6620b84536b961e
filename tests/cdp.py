"""Headless Chromium driven through the DevTools protocol over a pipe, with no extra package.

With ``--remote-debugging-pipe`` Chromium reads commands from file descriptor 3
and writes replies and events to descriptor 4, each a JSON object followed by
a NUL byte. That is all a test needs to load a page, click, type, read the DOM,
take screenshots and collect the page's errors.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def chromium() -> str | None:
    """The Chromium executable, or None where none is installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    """Raised when Chromium answers a command with an error, or not in time."""


@dataclass
class Browser:
    process: subprocess.Popen[bytes]
    to_browser: int
    from_browser: int
    events: list[dict[str, Any]] = field(default_factory=list)
    _buffer: bytes = b""
    _next_id: int = 0

    def command(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        reply = self._read_until(lambda m: m.get("id") == self._next_id, timeout=30)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def _read_until(self, wanted: Any, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message: dict[str, Any] = json.loads(raw)
                if "method" in message:
                    self.events.append(message)
                if wanted(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the pipe")
            self._buffer += chunk

    def new_page(self, width: int = 900, height: int = 900) -> Page:
        target = self.command("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.command("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session, target)
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(f"{domain}.enable")
        page.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        return page


@dataclass
class Page:
    browser: Browser
    session: str
    target: str

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.command(method, params, self.session)

    def close(self) -> None:
        self.browser.command("Target.closeTarget", {"targetId": self.target})

    def navigate(self, url: str) -> None:
        # The page before is complete too, and may answer before the new one is in place: it is marked,
        # and the wait is for a complete page without the mark, the new document's.
        self.evaluate("window.leftByNavigation = true")
        self.send("Page.navigate", {"url": url})
        self.wait_for(
            "document.readyState === 'complete' && location.href !== 'about:blank' && !window.leftByNavigation"
        )

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises are awaited)."""
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"still false after {timeout} s: {expression}")
            time.sleep(0.05)

    def click(self, x: float, y: float) -> None:
        """A real mouse click at page coordinates, as a tap or a click would arrive."""
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def press(self, digit: int, alt: bool = False) -> None:
        """A number key of the top row, as the keyboard sends it."""
        params = {
            "code": f"Digit{digit}",
            "key": str(digit),
            "windowsVirtualKeyCode": 48 + digit,
            "modifiers": 1 if alt else 0,
        }
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", **params})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **params})

    def screenshot(self, path: Path, selector: str = "") -> None:
        """The page, or the element ``selector`` finds, as a PNG file."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if selector:
            box = self.evaluate(
                f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; })()"
            )
            params["clip"] = {**box, "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def _events(self, method: str) -> Iterator[dict[str, Any]]:
        for event in self.browser.events:
            if event.get("sessionId") == self.session and event["method"] == method:
                yield event["params"]

    def errors(self) -> list[str]:
        """Every script error, console error and failed load the page has seen."""
        found = [str(e["exceptionDetails"]) for e in self._events("Runtime.exceptionThrown")]
        found += [str(e["args"]) for e in self._events("Runtime.consoleAPICalled") if e["type"] in ("error", "assert")]
        found += [e["entry"]["text"] for e in self._events("Log.entryAdded") if e["entry"]["level"] == "error"]
        return found

    def requested(self) -> list[str]:
        """The URL of every request the page made."""
        return [e["request"]["url"] for e in self._events("Network.requestWillBeSent")]


@contextmanager
def launch(executable: str, profile: Path) -> Iterator[Browser]:
    """Chromium with a fresh profile, stopped (and waited for) at the end."""
    commands_read, commands_write = os.pipe()
    replies_read, replies_write = os.pipe()

    def descriptors() -> None:  # in the child: the pipe ends Chromium expects
        ends = os.dup(commands_read), os.dup(replies_write)
        os.dup2(ends[0], 3)
        os.dup2(ends[1], 4)

    process = subprocess.Popen(
        [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        preexec_fn=descriptors,
        close_fds=False,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(commands_read)
    os.close(replies_write)
    browser = Browser(process, commands_write, replies_read)
    try:
        yield browser
    finally:
        try:
            browser.command("Browser.close")
        except (BrowserError, OSError):
            process.kill()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(commands_write)
        os.close(replies_read)
