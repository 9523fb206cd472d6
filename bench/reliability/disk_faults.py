#!/usr/bin/env python3
"""Disk faults of a node with a disk tier.

  disk_faults.py kill9 [--seconds S]   kill -9 during a fill, restart on the same
                                        directory: objects lost, wrong bytes (must be 0)
  disk_faults.py full [--size MiB]      a disk tier on a small tmpfs (needs root): every
                                        request still answered, how many warning lines,
                                        and writes resume once there is room again"""

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import harness


def fill(port, origin, stop, sizes=(1024, 16384, 200000)):
    """GETs distinct objects until `stop` is set; returns the URLs answered 200."""
    done = []
    i = 0
    while not stop.is_set() and i < 100000:
        url = f"http://127.0.0.1:{origin}/obj/f{i}?size={sizes[i % len(sizes)]}&max_age=3600"
        try:
            status, _, _ = harness.get(port, url, timeout=5)
        except OSError:
            break
        if status == 200:
            done.append(url)
        i += 1
    return done


def kill9(seconds):
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        config = harness.node_config(tmp)
        node, port, _ = harness.start_node(tmp, config)
        stop = threading.Event()
        result = []
        t = threading.Thread(target=lambda: result.extend(fill(port, origin_port, stop)))
        t.start()
        time.sleep(seconds)
        os.kill(node.pid, signal.SIGKILL)
        stop.set()
        t.join(30)
        node.proc.wait(10)
        node, port, _ = harness.start_node(tmp, config)
        lost = wrong = 0
        try:
            for url in result:
                status, _, body = harness.get(port, url, {"Cache-Control": "only-if-cached"})
                if status != 200:
                    lost += 1
                    continue
                _, _, truth = harness.get(origin_port, url, proxy=False)
                wrong += body != truth
        finally:
            node.stop()
            origin.stop()
        print(f"kill -9 after {seconds} s of fill: {len(result)} objects answered before the "
              f"kill, {lost} not on disk after restart, {wrong} served with wrong bytes")
        return 1 if wrong else 0


def full(size_mib):
    if os.geteuid() != 0:
        print("disk full: skipped (mounting a tmpfs needs root)")
        return 0
    with harness.temp_dir() as tmp:
        cache = Path(tmp) / "cache"
        cache.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m", "tmpfs", str(cache)],
                       check=True)
        try:
            origin, origin_port = harness.start_origin(tmp)
            config = harness.node_config(tmp)
            config["cache"]["disk"]["max_bytes"] = "1GiB"  # more than the tmpfs holds
            node, port, admin = harness.start_node(tmp, config)
            try:
                answered = 0
                total = 400
                for i in range(total):
                    url = f"http://127.0.0.1:{origin_port}/obj/full{i}?size=262144&max_age=3600"
                    status, _, _ = harness.get(port, url)
                    answered += status == 200
                time.sleep(2)
                warnings = node.count(r"(?i)no space|disk.*(full|fail)|ENOSPC")
                files_full = sum(1 for _ in cache.rglob("*") if _.is_file())
                subprocess.run(["mount", "-o", f"remount,size={size_mib * 8}m", str(cache)],
                               check=True)
                for i in range(50):
                    url = f"http://127.0.0.1:{origin_port}/obj/after{i}?size=16384&max_age=3600"
                    harness.get(port, url)
                time.sleep(2)
                files_after = sum(1 for _ in cache.rglob("*") if _.is_file())
                _, _, metrics = harness.get(admin, f"http://127.0.0.1:{admin}/metrics", proxy=False)
                disk_lines = [line for line in metrics.decode().splitlines()
                              if "disk" in line and not line.startswith("#")]
            finally:
                node.stop()
                origin.stop()
        finally:
            subprocess.run(["umount", str(cache)], check=False)
        print(f"disk full ({size_mib} MiB tmpfs): {answered} of {total} requests answered 200, "
              f"{warnings} warning lines, {files_full} files when full, {files_after} after "
              f"growing the tmpfs (writes resumed: {files_after > files_full})")
        for line in disk_lines:
            print("  " + line)
        return 0 if answered == total and files_after > files_full else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe", choices=["kill9", "full"])
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--size", type=int, default=16)
    args = parser.parse_args()
    return kill9(args.seconds) if args.probe == "kill9" else full(args.size)


if __name__ == "__main__":
    sys.exit(main())
