#!/usr/bin/env python3
"""Opens bleanalyze reports in headless Chromium, offline, and prints what each shows.

    report_dom.py [--chromium PATH] [--screenshot PNG] REPORT.html...

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: no port,
no network), with the network emulated offline and every host name unresolvable. For
each report it prints one JSON line: the console errors and exceptions, every request
that went anywhere but the file itself, what the DOM shows (per capture: the counts the
summary shows and carries, the sequence diagram's steps, each chart's text
alternative), whether the tables sort and the steps take the keyboard, and whether a
screenshot is blank. With --screenshot, the first report's first screen is saved as a
PNG (for the README). Python 3 standard library only.
"""

import argparse
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

EXTRACT = r"""
(() => {
  const text = (id) => { const e = document.getElementById(id); return e ? e.textContent.trim() : ''; };
  const captures = [...document.querySelectorAll('section.capture')].map((section) => {
    const summary = section.querySelector('section.summary');
    const data = summary ? Object.assign({}, summary.dataset) : {};
    const shown = summary ? [...summary.querySelectorAll('ul.counts li')].map((li) => ({
      number: +li.querySelector('b').textContent, what: li.textContent.replace(/^\s*\d+/, '').trim() })) : [];
    const steps = [...section.querySelectorAll('ol.steps > li[data-call]')].map((li) => ({
      call: li.dataset.call, frames: li.dataset.frames, count: +li.dataset.count,
      handle: li.closest('.seq').dataset.handle === undefined ? null : +li.closest('.seq').dataset.handle,
      error: li.dataset.error === '1', redArrow: !!li.querySelector('.a.e'),
      marked: li.querySelector('summary').textContent.includes('\u2717') }));
    const omitted = [...section.querySelectorAll('.seq')].reduce((sum, seq) => sum + +seq.dataset.omitted, 0);
    const charts = [...section.querySelectorAll('figure.chart')].map((figure) => {
      const svg = figure.querySelector('svg');
      const ids = svg ? (svg.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean) : [];
      return { kind: figure.dataset.chart, role: svg ? svg.getAttribute('role') : null,
        title: svg && svg.querySelector('title') ? svg.querySelector('title').textContent.trim() : '',
        labelled: ids.length > 0 && ids.every((id) => text(id).length > 0),
        caption: (figure.querySelector('figcaption') || {textContent: ''}).textContent.trim(),
        dataRows: figure.querySelectorAll('details table tbody tr').length };
    });
    const svgsOutsideCharts = [...section.querySelectorAll('svg')].filter((svg) => !svg.closest('figure.chart')).length;
    return { file: section.dataset.file, data, shown, steps, omitted, charts, svgsOutsideCharts,
      tables: section.querySelectorAll('table.sortable').length };
  });
  const external = [...document.querySelectorAll('[src],[href],link,object,embed,iframe')]
    .map((e) => e.getAttribute('src') || e.getAttribute('href') || e.tagName)
    .filter((ref) => !ref.startsWith('#'));
  // Sorting: press a numeric header's button and read the result.
  let sorts = null;
  const th = document.querySelector('table.sortable th.n');
  if (th) {
    th.querySelector('button').click();
    const column = [...th.parentNode.children].indexOf(th);
    const values = [...th.closest('table').tBodies[0].rows].map((r) => r.cells[column])
      .filter((c) => c && c.dataset.v !== undefined).map((c) => +c.dataset.v);
    sorts = th.getAttribute('aria-sort') === 'ascending' && values.every((v, i) => i === 0 || values[i - 1] <= v);
  }
  // Keyboard: every step's summary takes focus, and ArrowDown moves to the next one.
  const seq = [...document.querySelectorAll('.seq')].find((s) => s.querySelectorAll('.steps summary').length >= 2);
  const summaries = seq ? [...seq.querySelectorAll('.steps summary')] : [];
  let keyboard = null;
  if (summaries.length >= 2) {
    summaries[0].focus();
    summaries[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowDown', bubbles: true}));
    keyboard = document.activeElement === summaries[1]
      && [...document.querySelectorAll('.steps summary')].every((s) => s.tabIndex >= 0);
  }
  const printRules = [...document.styleSheets].some((sheet) =>
    [...sheet.cssRules].some((rule) => rule.media && [...rule.media].includes('print')));
  return { title: document.title, captures, external, scripts: [...document.scripts].filter((s) => s.src).length,
    sorts, keyboard, printRules, bytes: document.documentElement.outerHTML.length };
})()
"""


class Browser:
    """Headless Chromium with the DevTools protocol on fds 3 (in) and 4 (out)."""

    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="report-dom-")
        to_chromium, self.write_fd = os.pipe()
        self.read_fd, from_chromium = os.pipe()

        def wire():
            # The pipes may already be fds 3 and 4; copies first, so that dup2 clears close-on-exec.
            inbound, outbound = os.dup(to_chromium), os.dup(from_chromium)
            os.dup2(inbound, 3)
            os.dup2(outbound, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, close_fds=False)
        os.close(to_chromium)
        os.close(from_chromium)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, session, timeout=60):
        deadline = time.time() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            self.events.append(self._read(deadline))


def png_blank(data):
    """Whether a PNG (8-bit RGB or RGBA) is one colour; unfilters every row."""
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None:
        return None
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        if kind == b"IDAT":
            idat += data[position + 8:position + 8 + length]
        position += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = row[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                row[x] = (row[x] + left) & 255
            elif kind == 2:
                row[x] = (row[x] + up) & 255
            elif kind == 3:
                row[x] = (row[x] + ((left + up) >> 1)) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                row[x] = (row[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        for x in range(0, stride, channels * 7):
            colours.add(bytes(row[x:x + 3]))
        previous = row
    return len(colours) < 3


def inspect(browser, path, screenshot=None):
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for method in ("Runtime.enable", "Log.enable", "Network.enable", "Page.enable"):
        browser.call(method, session=session)
    browser.call("Network.emulateNetworkConditions",
                 {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}, session=session)
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": 1100, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, session=session)
    url = "file://" + os.path.abspath(path)
    browser.events = [e for e in browser.events if e.get("sessionId") != session]
    browser.call("Page.navigate", {"url": url}, session=session)
    browser.wait_for("Page.loadEventFired", session)
    shot = browser.call("Page.captureScreenshot",
                        {"format": "png", "clip": {"x": 0, "y": 0, "width": 1100, "height": 1000, "scale": 0.25}},
                        session=session)
    blank = png_blank(base64.b64decode(shot["data"]))
    if screenshot:
        full = browser.call("Page.captureScreenshot",
                            {"format": "png", "clip": {"x": 0, "y": 0, "width": 1100, "height": 1000, "scale": 0.8}},
                            session=session)
        with open(screenshot, "wb") as out:
            out.write(base64.b64decode(full["data"]))
    # After the screenshots: the extraction moves the focus, which scrolls the page.
    result = browser.call("Runtime.evaluate", {"expression": EXTRACT, "returnByValue": True}, session=session)
    if "exceptionDetails" in result:
        raise RuntimeError(f"{path}: the DOM extraction failed: {result['exceptionDetails']}")
    page = result["result"]["value"]
    page["blank"] = blank
    errors, requests = [], []
    for event in browser.events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            errors.append(params.get("exceptionDetails", {}).get("text", "exception"))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            errors.append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            request = params.get("request", {}).get("url", "")
            if request != url and not request.startswith("data:"):
                requests.append(request)
    page.update({"path": path, "console_errors": errors, "requests": requests})
    browser.call("Target.closeTarget", {"targetId": target})
    browser.events = [e for e in browser.events if e.get("sessionId") != session]
    return page


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--screenshot", help="save the first report's first screen here (PNG)")
    parser.add_argument("reports", nargs="+")
    args = parser.parse_args()
    browser = Browser(args.chromium)
    try:
        for index, path in enumerate(args.reports):
            page = inspect(browser, path, args.screenshot if index == 0 else None)
            print(json.dumps(page), flush=True)
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
