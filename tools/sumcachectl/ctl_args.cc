#include "tools/sumcachectl/ctl_args.h"

#include <arpa/inet.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "filters/filter_params.h"

namespace sumcache::tools {

const std::string_view kUsage =
    "usage: sumcachectl [--admin [https://]HOST:PORT] [--cacert FILE]\n"
    "                   [--token T | --token-file F] [--json] [--timeout-ms N] COMMAND\n"
    "commands:\n"
    "  stats                 counters, hit ratios, latency, store (--json: the raw /stats)\n"
    "  peers                 the peer table (--json: the raw /peers)\n"
    "  filter                the local counting filter (--json: the raw /filter)\n"
    "  purge URL             remove URL from the cache on every node; prints the answer:\n"
    "                        how many went here, and which nodes acknowledged it;\n"
    "                        exit 0 purged, 1 not cached here, 2 error\n"
    "  purge --tag T         the same for every object whose Surrogate-Key lists T\n"
    "  purge --prefix P      the same for every URL that starts with P (scheme://host/path)\n"
    "  peer add ID HOST [--http-port N] [--peer-port N] [--icp-port N] [--object-port N]\n"
    "                [--weight W]\n"
    "                        add a peer now, until the next restart (POST /peers)\n"
    "  peer remove ID        remove a peer now, until the next restart (DELETE /peers/ID)\n"
    "  bloom-calc --entries N (--fpr P | --bits-per-entry B) [--hashes K]\n"
    "                        filter sizes, FPR and summary size on the wire (offline);\n"
    "                        with --fpr also the wire-optimal filter (filter.objective \"wire\")\n"
    "--admin defaults to 127.0.0.1:3129; HOST is an IP literal or localhost.\n"
    "https:// (admin.tls) verifies the admin's certificate and name against --cacert FILE,\n"
    "or the system's CA store without it.\n"
    "--token-file is safer than --token, which other users can read in the process list.\n";

namespace {

template <class T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
  return value;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buffer[16];
  return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

bool takes_value(std::string_view option) {
  for (std::string_view known :
       {"--admin", "--cacert", "--token", "--token-file", "--timeout-ms", "--entries", "--fpr",
        "--bits-per-entry", "--hashes", "--tag", "--prefix", "--http-port", "--peer-port",
        "--icp-port", "--object-port", "--weight"}) {
    if (option == known) return true;
  }
  return false;
}

std::optional<Verb> verb_named(std::string_view name) {
  if (name == "stats") return Verb::stats;
  if (name == "peers") return Verb::peers;
  if (name == "filter") return Verb::filter;
  if (name == "purge") return Verb::purge;
  if (name == "bloom-calc") return Verb::bloom_calc;
  if (name == "peer") return Verb::peer_add;  // the sub-command decides
  if (name == "help") return Verb::help;
  return std::nullopt;
}

// Checks what one option alone cannot: the verb's required operands and exclusions.
std::string check_command(const CtlCommand& c, bool has_verb) {
  if (!has_verb) return "no command given";
  if (!c.token.empty() && !c.token_file.empty())
    return "--token and --token-file exclude each other";
  if (!c.cacert.empty() && !c.admin.https) return "--cacert needs an https:// --admin";
  if (c.verb != Verb::purge && (!c.tag.empty() || !c.prefix.empty())) {
    return "--tag and --prefix belong to purge";
  }
  if (c.verb == Verb::purge) {
    const int targets = !c.url.empty() + !c.tag.empty() + !c.prefix.empty();
    if (targets != 1) return "purge needs exactly one of a URL, --tag T and --prefix P";
    if (!c.url.empty() && c.url.find("://") == std::string::npos) {
      return "purge needs an absolute URL (scheme://host/path), got '" + c.url + "'";
    }
    if (!c.prefix.empty() && c.prefix.find("://") == std::string::npos) {
      return "--prefix needs an absolute URL prefix (scheme://host/path), got '" + c.prefix + "'";
    }
  }
  const bool peer_add = c.verb == Verb::peer_add;
  if (peer_add && (c.peer_id.empty() || c.peer_host.empty())) return "peer add needs ID and HOST";
  if (c.verb == Verb::peer_remove && c.peer_id.empty()) return "peer remove needs ID";
  if (!peer_add && (c.http_port != 0 || c.peer_port != 0 || c.icp_port != 0 || c.object_port != 0 ||
                    c.weight != 0)) {
    return "--http-port, --peer-port, --icp-port, --object-port and --weight belong to peer add";
  }
  if (c.verb != Verb::bloom_calc) {
    if (c.entries != 0 || c.fpr != 0 || c.bits_per_entry != 0 || c.hashes != 0) {
      return "--entries, --fpr, --bits-per-entry and --hashes belong to bloom-calc";
    }
    return "";
  }
  if (c.entries == 0) return "bloom-calc needs --entries N (N >= 1)";
  if ((c.fpr == 0) == (c.bits_per_entry == 0)) {
    return "bloom-calc needs exactly one of --fpr P and --bits-per-entry B";
  }
  return "";
}

}  // namespace

bool parse_admin_address(std::string_view text, AdminAddress& out) {
  const bool https = text.starts_with("https://");
  if (https) {
    text.remove_prefix(std::string_view("https://").size());
  } else if (text.starts_with("http://")) {
    text.remove_prefix(std::string_view("http://").size());
  }
  std::string host;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return false;
    host = std::string(text.substr(1, close - 1));
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return false;
    if (!rest.empty()) port_text = rest.substr(1);
    if (host.find(':') == std::string::npos) return false;  // brackets are for IPv6 only
  } else {
    const auto colon = text.find(':');
    if (colon != text.rfind(':')) return false;  // a bare IPv6 literal is ambiguous
    host = std::string(text.substr(0, colon));
    if (colon != std::string_view::npos) port_text = text.substr(colon + 1);
  }
  const std::string written = host;
  if (host == "localhost") host = "127.0.0.1";
  if (!is_ip_literal(host)) return false;
  std::uint16_t port = 3129;
  if (!port_text.empty() || text.ends_with(':')) {
    auto parsed = parse_number<std::uint16_t>(port_text);
    if (!parsed || *parsed == 0) return false;
    port = *parsed;
  }
  out = {host, port, https, https ? written : ""};
  return true;
}

ParsedArgs parse_args(const std::vector<std::string>& args) {
  ParsedArgs parsed;
  CtlCommand& c = parsed.command;
  bool has_verb = false;
  bool peer_sub = false;  // "peer" was followed by add or remove
  auto fail = [&parsed](std::string reason) {
    parsed.error = std::move(reason);
    return parsed;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool has_value = i + 1 < args.size();
    const std::string value = has_value ? args[i + 1] : "";
    if (arg == "--help" || arg == "-h") {
      c.verb = Verb::help;
      return parsed;
    }
    if (arg == "--json") {
      c.json = true;
      continue;
    }
    if (takes_value(arg) && !has_value) return fail(arg + " needs a value");
    if (arg == "--admin") {
      if (!parse_admin_address(value, c.admin)) {
        return fail("--admin wants [https://]HOST:PORT with an IP literal host, got '" + value +
                    "'");
      }
    } else if (arg == "--cacert") {
      if (value.empty()) return fail("--cacert is empty");
      c.cacert = value;
    } else if (arg == "--token") {
      if (value.empty()) return fail("--token is empty");
      c.token = value;
    } else if (arg == "--token-file") {
      c.token_file = value;
    } else if (arg == "--timeout-ms") {
      auto ms = parse_number<std::uint32_t>(value);
      if (!ms || *ms == 0 || *ms > 3'600'000) return fail("--timeout-ms wants 1..3600000");
      c.timeout = std::chrono::milliseconds(*ms);
    } else if (arg == "--entries") {
      auto n = parse_number<std::uint64_t>(value);
      if (!n || *n == 0) return fail("--entries wants a whole number >= 1, got '" + value + "'");
      c.entries = *n;
    } else if (arg == "--fpr") {
      auto p = parse_number<double>(value);
      if (!p || !(*p > 0 && *p < 1))
        return fail("--fpr wants a number in (0, 1), got '" + value + "'");
      c.fpr = *p;
    } else if (arg == "--bits-per-entry") {
      auto b = parse_number<double>(value);
      if (!b || !(*b > 0 && *b <= 1024))
        return fail("--bits-per-entry wants (0, 1024], got '" + value + "'");
      c.bits_per_entry = *b;
    } else if (arg == "--tag") {
      if (value.empty()) return fail("--tag is empty");
      c.tag = value;
    } else if (arg == "--prefix") {
      if (value.empty()) return fail("--prefix is empty");
      c.prefix = value;
    } else if (arg == "--hashes") {
      auto k = parse_number<std::uint32_t>(value);
      if (!k || *k == 0 || *k > filters::kMaxHashes) {
        return fail("--hashes wants 1.." + std::to_string(filters::kMaxHashes));
      }
      c.hashes = *k;
    } else if (arg == "--http-port" || arg == "--peer-port" || arg == "--icp-port" ||
               arg == "--object-port") {
      auto port = parse_number<std::uint16_t>(value);
      if (!port || *port == 0) return fail(arg + " wants 1..65535, got '" + value + "'");
      (arg == "--http-port"   ? c.http_port
       : arg == "--peer-port" ? c.peer_port
       : arg == "--icp-port"  ? c.icp_port
                              : c.object_port) = *port;
    } else if (arg == "--weight") {
      auto w = parse_number<std::uint32_t>(value);
      if (!w || *w == 0 || *w > 100) return fail("--weight wants 1..100, got '" + value + "'");
      c.weight = *w;
    } else if (arg.starts_with("-")) {
      return fail("unknown option '" + arg + "'");
    } else if (!has_verb) {
      auto verb = verb_named(arg);
      if (!verb) return fail("unknown command '" + arg + "'");
      c.verb = *verb;
      has_verb = true;
      continue;
    } else if (c.verb == Verb::purge && c.url.empty()) {
      c.url = arg;
      continue;
    } else if (c.verb == Verb::peer_add && !peer_sub) {
      if (arg != "add" && arg != "remove")
        return fail("peer wants add or remove, got '" + arg + "'");
      if (arg == "remove") c.verb = Verb::peer_remove;
      peer_sub = true;
      continue;
    } else if ((c.verb == Verb::peer_add || c.verb == Verb::peer_remove) && c.peer_id.empty()) {
      c.peer_id = arg;
      continue;
    } else if (c.verb == Verb::peer_add && c.peer_host.empty()) {
      c.peer_host = arg;
      continue;
    } else {
      return fail("unexpected argument '" + arg + "'");
    }
    ++i;  // the option's value
  }
  if (has_verb && c.verb == Verb::peer_add && !peer_sub) return fail("peer wants add or remove");
  if (auto reason = check_command(c, has_verb); !reason.empty()) return fail(reason);
  return parsed;
}

}  // namespace sumcache::tools
