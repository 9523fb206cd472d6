"""The replayed workload: one request stream per node, reproducible from a seed.

Each node's stream mixes two Zipf-like popularity laws (Breslau et al., INFOCOM
1999: web requests follow Zipf with alpha 0.64-0.83):
  - shared: a Zipf over the whole URL universe, one ranking for every node, so
    the nodes' hot sets overlap (what makes remote hits possible);
  - local: a Zipf over the node's own slice of the universe (a quarter of it for
    4 nodes), with the node's own ranking, so each node also has a working set
    the others touch only through the shared law.
"""
import bisect
import hashlib
import random
from dataclasses import dataclass, asdict


@dataclass(frozen=True)
class Workload:
    seed: int = 20000
    universe: int = 40000
    alpha: float = 0.75
    nodes: int = 4
    requests_per_node: int = 25000
    shared_fraction: float = 0.5  # share of each stream drawn from the shared law
    min_body: int = 1024
    max_body: int = 8192

    def as_dict(self):
        return asdict(self)


def zipf_cdf(n, alpha):
    """Cumulative weights of ranks 1..n under 1/rank^alpha, normalised to 1."""
    total = 0.0
    cdf = []
    for rank in range(1, n + 1):
        total += rank ** -alpha
        cdf.append(total)
    return [c / total for c in cdf]


def url_path(index):
    return f"/obj/{index:06d}"


def body_size(w, path):
    """Deterministic per URL, uniform in [min_body, max_body]."""
    digest = hashlib.blake2b(path.encode(), digest_size=8).digest()
    return w.min_body + int.from_bytes(digest, "little") % (w.max_body - w.min_body + 1)


def body_bytes(w, path):
    """The object's body: its path repeated, so a wrong object is detectable."""
    size = body_size(w, path)
    unit = (path + "\n").encode()
    return (unit * (size // len(unit) + 1))[:size]


def _rankings(w):
    """The shared ranking over the universe and each node's ranking of its slice."""
    rng = random.Random(w.seed)
    shared = list(range(w.universe))
    rng.shuffle(shared)
    slice_size = w.universe // w.nodes
    local = []
    for node in range(w.nodes):
        own = list(range(node * slice_size, (node + 1) * slice_size))
        rng.shuffle(own)
        local.append(own)
    return shared, local


def node_stream(w, node):
    """The list of URL paths node `node`'s client requests, in order."""
    shared, local = _rankings(w)
    shared_cdf = zipf_cdf(len(shared), w.alpha)
    local_cdf = zipf_cdf(len(local[node]), w.alpha)
    rng = random.Random(w.seed * 1000 + node + 1)
    out = []
    for _ in range(w.requests_per_node):
        if rng.random() < w.shared_fraction:
            ranking, cdf = shared, shared_cdf
        else:
            ranking, cdf = local[node], local_cdf
        rank = min(bisect.bisect_left(cdf, rng.random()), len(ranking) - 1)
        out.append(url_path(ranking[rank]))
    return out


def describe(w, streams):
    """Working-set figures the cache sizes are derived from."""
    per_node = []
    for stream in streams:
        distinct = set(stream)
        per_node.append({
            "requests": len(stream),
            "distinct_urls": len(distinct),
            "distinct_body_bytes": sum(body_size(w, p) for p in distinct),
        })
    sets = [set(s) for s in streams]
    union = set().union(*sets)
    in_two_or_more = sum(1 for u in union if sum(u in s for s in sets) >= 2)
    return {
        "per_node": per_node,
        "distinct_urls_all_nodes": len(union),
        "urls_requested_by_two_or_more_nodes": in_two_or_more,
        "mean_body_bytes": (w.min_body + w.max_body) / 2,
    }
