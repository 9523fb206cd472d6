#!/usr/bin/env python3
"""Host mismatch, in reverse mode (default reverse.host_header keep) and forward mode: an
attacker's request whose absolute-form target names victim.example while its Host (and
X-Forwarded-Host) name attacker.example, then the victim's own request for the URL. The
origin writes the Host (or X-Forwarded-Host) it received into the ETag, so a page fetched
for the attacker and stored under the victim's key shows. Also: spellings of one host
(case, trailing dot, default port) and hosts that are not one name (userinfo, a path,
percent-encoding, two Host lines). Prints, per mode, how many victim answers carried the
attacker's page and how many keys the spellings made.

  host_mismatch.py [--attempts N]"""

import argparse
import sys

import harness


def request(port, target, headers, timeout=5.0):
    head = f"GET {target} HTTP/1.1\r\n"
    for name, value in headers:
        head += f"{name}: {value}\r\n"
    data, _, _ = harness.exchange(port, (head + "Connection: close\r\n\r\n").encode(), timeout)
    head_end = data.find(b"\r\n\r\n")
    fields = {}
    for line in data[:max(head_end, 0)].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        fields[name.decode().strip().lower()] = value.decode(errors="replace").strip()
    return harness.status_of(data), fields


def run_mode(tmp, mode, origin_port, attempts):
    overrides = {"mode": mode,
                 "cache": {"memory": {"max_bytes": "64MiB"},
                           "disk": {"path": f"{tmp}/cache-{mode}", "max_bytes": "256MiB"}}}
    if mode == "reverse":
        overrides["reverse"] = {"origin": f"http://127.0.0.1:{origin_port}"}
    node, port, _ = harness.start_node(tmp, harness.node_config(tmp, **overrides),
                                       name=f"{mode}.json")
    victim = "victim.example" if mode == "reverse" else f"127.0.0.1:{origin_port}"
    poisoned = hits = xfh_leaks = 0
    try:
        for i in range(attempts):
            path = f"/obj/m{i}?etag_from=Host&max_age=600"
            xfh_path = f"/obj/x{i}?etag_from=X-Forwarded-Host&max_age=600"
            request(port, f"http://{victim}{path}",
                    [("Host", "attacker.example"), ("X-Forwarded-Host", "attacker.example")])
            status, fields = request(port, f"http://{victim}{xfh_path}",
                                     [("Host", "attacker.example"),
                                      ("X-Forwarded-Host", "attacker.example")])
            xfh_leaks += "attacker" in fields.get("etag", "")
            target = path if mode == "reverse" else f"http://{victim}{path}"
            status, fields = request(port, target, [("Host", victim)])
            hits += fields.get("x-cache") == "HIT"
            poisoned += "attacker" in fields.get("etag", "")
        keys = set()
        spellings = ["VICTIM.Example", "victim.example.", "victim.example:80", "Victim.Example.:80"]
        if mode == "reverse":
            for host in spellings:
                _, fields = request(port, "/obj/spell?etag_from=Host&max_age=600", [("Host", host)])
                keys.add((fields.get("x-cache") == "MISS", fields.get("etag")))
        refused = 0
        bad = ["u@victim.example", "victim.example/p", "%76ictim.example", "victim..example"]
        for host in bad:
            target = "/obj/bad" if mode == "reverse" else f"http://{victim}/obj/bad"
            status, _ = request(port, target, [("Host", host)])
            refused += status == 400
        status, _ = request(port, "/obj/bad" if mode == "reverse" else f"http://{victim}/obj/bad",
                            [("Host", victim), ("Host", "attacker.example")])
        refused += status == 400
        print(f"{mode}: {attempts} attempts: victim answers with the attacker's page "
              f"{poisoned}, victim hits {hits}; X-Forwarded-Host reaching the origin "
              f"{xfh_leaks}; {len(spellings) if mode == 'reverse' else 0} spellings of one host "
              f"made {sum(1 for miss, _ in keys if miss)} fetch(es) and ETags "
              f"{sorted(str(etag) for _, etag in keys)}; {refused} of {len(bad) + 1} bad hosts "
              f"refused with 400")
        ok = poisoned == 0 and xfh_leaks == 0 and hits == attempts and refused == len(bad) + 1
        if mode == "reverse":
            ok = ok and len({etag for _, etag in keys}) == 1 and \
                sum(1 for miss, _ in keys if miss) == 1
        return ok
    finally:
        node.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=20)
    args = parser.parse_args()
    attempts = max(1, min(args.attempts, 1000))
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        try:
            ok = all([run_mode(tmp, "reverse", origin_port, attempts),
                      run_mode(tmp, "forward", origin_port, attempts)])
        finally:
            origin.stop()
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
