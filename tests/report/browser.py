#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A page latscope-report wrote, rendered by a real browser: Debian's
chromium, headless, driven by Selenium (chromium-driver). Passes when
the page loaded, every image in it loaded (its pixels decoded: complete
and a natural width), the browser logged no error (a script error, a
resource not found, a blocked request) and a screenshot of it is not
blank (more than a few colours). Prints one line per check, "PASS ..."
or "FAIL ...", and exits 1 if one failed.

usage: browser.py PAGE.html SCREENSHOT.png"""

import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def browser():
    """Headless chromium, as root in a container: no sandbox, no GPU."""
    opts = webdriver.ChromeOptions()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1200,1600"):
        opts.add_argument(a)
    opts.binary_location = "/usr/bin/chromium"
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def colours(png):
    """How many different colours the screenshot holds."""
    import matplotlib.image
    import numpy
    pixels = matplotlib.image.imread(png)
    return len(numpy.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0))


def main(page, shot):
    results = []
    d = browser()
    try:
        d.get("file://" + os.path.abspath(page))
        state = d.execute_script("return document.readyState")
        results.append((state == "complete", f"the page loaded ({state})"))
        images = d.execute_script(
            "return Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth,"
            " i.src.slice(0, 22)])")
        bad = [i for i in images if not (i[1] and i[2] > 0)]
        results.append((images and not bad,
                        f"{len(images)} images, every one loaded"
                        + (f": not {', '.join(i[0] for i in bad)}" if bad else "")))
        outside = [i for i in images if not i[3].startswith("data:image/png;base64,")]
        results.append((not outside, "every image embedded (a data: URI)"))
        errors = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
        results.append((not errors, "no error in the browser's log"
                        + (f": {errors[0][:200]}" if errors else "")))
        d.save_screenshot(shot)
    finally:
        d.quit()
    n = colours(shot)
    results.append((n > 16, f"the screenshot is not blank ({n} colours)"))
    for ok, what in results:
        print(f"{'PASS' if ok else 'FAIL'} browser: {what}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("usage: ")[1])
    sys.exit(main(sys.argv[1], sys.argv[2]))
