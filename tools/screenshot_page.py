"""Screenshots of `gradcli explain FILE --html` pages in headless Chromium (Selenium, system browser).

    python tools/screenshot_page.py examples/seed000_block1.py docs/explain_seed000_block1.png

writes the page of FILE and a PNG of it at its last step (the error, when the script fails),
at 1280x800 (--width, --height; --step N for another step). The README's screenshot is made so.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile


def browser(width=1280, height=800):
    """Headless Chromium driven by the system's chromedriver (Debian: chromium, chromium-driver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", f"--window-size={width},{height}"):
        options.add_argument(arg)
    import resource
    # The browser reserves far more address space than it uses: a cap this process runs under (the
    # fuzzers cap theirs) would make it crash at start, so it starts with the hard limit only.
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    try:
        driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")),
                                  options=options)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    driver.set_window_size(width, height)
    # the viewport, not the window, must have the asked size
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    return driver


def press(driver, key, times=1):
    from selenium.webdriver.common.action_chains import ActionChains
    for _ in range(times):
        ActionChains(driver).send_keys(key).perform()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("script")
    p.add_argument("png")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=800)
    p.add_argument("--step", type=int, help="the step to show (default: the last)")
    args = p.parse_args(argv)
    from selenium.webdriver.common.keys import Keys
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        subprocess.run([sys.executable, "-m", "gradcli", "explain", args.script, "--html", page],
                       stdout=subprocess.DEVNULL)
        driver = browser(args.width, args.height)
        try:
            driver.get("file://" + page)
            if args.step is None:
                press(driver, Keys.END)
            else:
                press(driver, Keys.ARROW_RIGHT, args.step)
            driver.save_screenshot(args.png)
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
