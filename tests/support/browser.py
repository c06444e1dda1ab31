"""Headless Chromium driven by Selenium, for tests that look at a page as a reader does. The
browser comes from the system (Debian's chromium and chromium-driver; .ci/run installs them): a test
skips without it, and fails under EXTREMBENCH_REQUIRE_BROWSER=1 (CI), where it must run."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

import pytest

# closed network: no background connections, no first-run or sync traffic; root in a container
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def _require(reason: str) -> None:
    if os.environ.get("EXTREMBENCH_REQUIRE_BROWSER") == "1":
        pytest.fail(reason + " (EXTREMBENCH_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(reason)


@contextlib.contextmanager
def headless_chromium(width: int = 1280, height: int = 800):
    """A Selenium driver of headless Chromium with a `width` x `height` first screen."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        _require("headless Chromium needs chromium and chromedriver (Debian: apt-get install chromium chromium-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _require("selenium is not installed (the test extra: sh envs/install.sh cpu,test)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    with tempfile.TemporaryDirectory() as profile:
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={width},{height}")
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        try:
            yield driver
        finally:
            driver.quit()
