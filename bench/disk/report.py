"""The markdown tables of disk_hits.py, from a run's figures or from its raw.tsv."""
import statistics

from servers import HOT_PATH, url_count


def med(runs, field):
    values = [r[field] for r in runs if field in r]
    return statistics.median(values) if values else None


def report(rows, labels, sizes, args):
    out = ["| server | size | URLs | req/s | × nginx | p50 ms | p99 ms | CPU µs/req "
           "| CPU × nginx | server CPU % | disk hits | req/s per round | origin reqs "
           "| foreign CPU % max |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for size in sizes:
        ref = rows.get(("disk", size, "nginx"))
        for label in labels:
            runs = rows.get(("disk", size, label))
            if not runs:
                continue
            rps, cpu = med(runs, "rps"), med(runs, "cpu_us")
            share = med(runs, "disk_share")
            share_text = "-" if share is None else f"{100 * share:.0f}%"
            per_round = " ".join(f"{r['rps'] / 1000:.1f}k" for r in runs)
            out.append(
                f"| {label} | {size} | {url_count(size)} | {rps:,.0f} "
                f"| {rps / med(ref, 'rps'):.2f} | {med(runs, 'p50_us') / 1000:.2f} "
                f"| {med(runs, 'p99_us') / 1000:.2f} | {cpu:.1f} | {cpu / med(ref, 'cpu_us'):.2f} "
                f"| {med(runs, 'server_cpu_pct'):.0f} | {share_text} | {per_round} "
                f"| {sum(int(r['origin_requests']) for r in runs)} "
                f"| {max(r['foreign_cpu_pct'] for r in runs):.0f} |")
    if ("hot-alone", "1k", labels[0]) in rows:
        out += ["", f"Memory hits of {HOT_PATH} ({args.hot_conns} connections), alone and while "
                f"{args.load_conns} other connections fetch random 1 MiB disk hits:", "",
                "| server | alone p50 ms | alone p99 ms | loaded p50 ms | loaded p99 ms "
                "| p99 × alone | hot req/s alone / loaded | 1 MiB load req/s "
                "| foreign CPU % max |",
                "|---|---:|---:|---:|---:|---:|---|---:|---:|"]
        for label in labels:
            alone, loaded = rows[("hot-alone", "1k", label)], rows[("hot-loaded", "1k", label)]
            a99, l99 = med(alone, "p99_us"), med(loaded, "p99_us")
            out.append(
                f"| {label} | {med(alone, 'p50_us') / 1000:.2f} | {a99 / 1000:.2f} "
                f"| {med(loaded, 'p50_us') / 1000:.2f} | {l99 / 1000:.2f} | {l99 / a99:.1f} "
                f"| {med(alone, 'rps'):,.0f} / {med(loaded, 'rps'):,.0f} "
                f"| {med(loaded, 'load_rps'):,.0f} "
                f"| {max(r['foreign_cpu_pct'] for r in alone + loaded):.0f} |")
    return "\n".join(out)


def read_raw(path):
    """The rows, server labels and sizes of an earlier run's raw.tsv."""
    rows, labels, sizes = {}, [], []
    with open(path) as f:
        fields = f.readline().rstrip("\n").split("\t")[4:]
        for line in f:
            cells = line.rstrip("\n").split("\t")
            key = tuple(cells[:3])
            rows.setdefault(key, []).append(
                {k: float(v) for k, v in zip(fields, cells[4:]) if v != "-"})
            if key[2] not in labels:
                labels.append(key[2])
            if key[0] == "disk" and key[1] not in sizes:
                sizes.append(key[1])
    return rows, labels, sizes
