"""Paper map timing on the 4,378-paper store: the first (cold) map, the cached one, and after a restart.

Each measurement runs in a fresh Python process, so the cold figure includes importing umap-learn,
scikit-learn and numba (and compiling the layout step) as the first request of a new server does.

    PAPERCHAT_BENCH_DIR=/work/bench-NAME python -m benchmarks.paper_map [--screenshot artifacts/explore.png]

``--screenshot`` then serves that store, asks a question in Chromium, opens the Explore tab, clicks a cited
paper and saves the page (needs Playwright and Chromium, as the browser tests do).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from benchmarks.common import CACHE, DISTRACTORS, SEED, build_store, require_shared

QUESTION = "Which papers study differential privacy in federated learning?"


def measure(data_dir: str) -> dict[str, object]:
    """In this process: open the store, then time paper_map() twice (computed or loaded, then from memory)."""
    from assistant import Assistant
    from vectorstore.settings import Settings

    assistant = Assistant(Settings(data_dir=Path(data_dir), engine="extractive"), auto_ingest=False)
    wall, cpu = time.perf_counter(), time.process_time()
    first = assistant.paper_map()
    first_wall, first_cpu = time.perf_counter() - wall, time.process_time() - cpu
    wall = time.perf_counter()
    again = assistant.paper_map()
    return {"papers": len(first.points), "clusters": [c.label for c in first.clusters], "sizes": [c.size for c in first.clusters],
            "method": first.method, "computed_seconds": first.seconds, "first_wall": first_wall, "first_cpu": first_cpu,
            "again_wall": time.perf_counter() - wall, "same": again is first}


def run_fresh(data_dir: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "benchmarks.paper_map", "--measure", str(data_dir)],
                         capture_output=True, text=True, check=True, timeout=900)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def screenshot(data_dir: Path, path: Path) -> None:
    """Serve the store, ask QUESTION, open the Explore tab, click the first cited paper, save the page."""
    from playwright.sync_api import sync_playwright

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--persist-dir", str(data_dir),
                               "--engine", "extractive"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(url + "config", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("PAPERCHAT_CHROMIUM", "/usr/bin/chromium"),
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            page.fill("#pc-question textarea", QUESTION)
            page.keyboard.press("Enter")
            page.wait_for_selector("#pc-sources .pc-foot", timeout=300_000)
            cited = page.locator("#pc-sources .pc-card[id^=pc-source-]").first.get_attribute("data-paper-id")
            page.click("#pc-tab-explore-button")
            page.wait_for_function("() => { const gd = document.querySelector('#pc-map .js-plotly-plot');"
                                   " return !!(gd && gd.data && gd.data.length && gd._fullLayout); }", timeout=300_000)
            page.wait_for_timeout(1000)
            x, y = page.evaluate("""(id) => { const gd = document.querySelector('#pc-map .js-plotly-plot'), L = gd._fullLayout,
                b = gd.getBoundingClientRect(); for (const t of gd.data) { const i = Array.from(t.customdata).indexOf(id);
                if (i >= 0) return [b.left + L._size.l + L.xaxis.l2p(t.x[i]), b.top + L._size.t + L.yaxis.l2p(t.y[i])]; } }""", cited)
            page.mouse.click(x, y)
            page.wait_for_selector("#pc-map-paper .pc-related li", timeout=120_000)
            page.wait_for_timeout(1000)
            path.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(path))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--measure", metavar="DATA_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--screenshot", metavar="PNG", type=Path, help="also save a screenshot of the Explore tab")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    require_shared()
    assistant = build_store("distractors", [SEED, *DISTRACTORS])  # the cached benchmark store (nothing re-embedded)
    data_dir = assistant.settings.data_dir
    del assistant
    shutil.rmtree(data_dir / "cache" / "paper_map", ignore_errors=True)
    load = os.getloadavg()
    cold = run_fresh(data_dir)
    restart = run_fresh(data_dir)
    print(f"store: {data_dir} ({cold['papers']:,} papers), {os.cpu_count()} CPUs, load average before: {load[0]:.1f}")
    print(f"clusters ({cold['method']}): " + "; ".join(f"{label} ({n})" for label, n in zip(cold["clusters"], cold["sizes"])))  # type: ignore[call-overload]
    print("| request | wall | CPU |")
    print("|---|---|---|")
    print(f"| first, new process (imports + computation) | {cold['first_wall']:.1f} s | {cold['first_cpu']:.1f} s |")
    print(f"| again, same process (memory) | {cold['again_wall'] * 1000:.0f} ms | |")
    print(f"| first after a restart (the cache file) | {restart['first_wall']:.2f} s | {restart['first_cpu']:.2f} s |")
    assert restart["computed_seconds"] == cold["computed_seconds"], "the restart recomputed the map"
    if args.screenshot:
        screenshot(data_dir, args.screenshot)
        print(f"screenshot: {args.screenshot}")
    print(f"(benchmark stores in {CACHE})", file=sys.stderr)


if __name__ == "__main__":
    main()
