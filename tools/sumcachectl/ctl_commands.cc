#include "tools/sumcachectl/ctl_commands.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "tools/sumcachectl/admin_client.h"
#include "tools/sumcachectl/bloom_calc.h"
#include "tools/sumcachectl/ctl_error.h"
#include "tools/sumcachectl/json_tables.h"

namespace sumcache::tools {
namespace {

// The same cap the daemon puts on admin.token_file (docs/configuration.md).
constexpr std::size_t kMaxTokenFileBytes = std::size_t{64} * 1024;

Result<std::string> read_token(const CtlCommand& c) {
  if (c.token_file.empty()) return c.token;
  std::ifstream in(c.token_file, std::ios::binary);
  if (!in) return make_error_code(CtlErrc::token_file_unusable);
  std::string token(kMaxTokenFileBytes + 1, '\0');
  in.read(token.data(), static_cast<std::streamsize>(token.size()));
  token.resize(static_cast<std::size_t>(in.gcount()));
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  if (token.empty() || token.size() > kMaxTokenFileBytes) {
    return make_error_code(CtlErrc::token_file_unusable);
  }
  return token;
}

std::string describe(const AdminRequest& request, const AdminAddress& admin) {
  const bool v6 = admin.host.find(':') != std::string::npos;
  return request.method + (admin.https ? " https://" : " http://") +
         (v6 ? "[" + admin.host + "]" : admin.host) + ":" + std::to_string(admin.port) +
         request.target;
}

// The response body, trimmed to one line, for an error message.
std::string snippet(const std::string& body) {
  std::string s = body.substr(0, 200);
  for (char& ch : s) {
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  return s;
}

int show(const CtlCommand& c, const std::string& token, std::ostream& out, std::ostream& err) {
  const char* target = c.verb == Verb::stats   ? "/stats"
                       : c.verb == Verb::peers ? "/peers"
                                               : "/filter";
  const AdminRequest request{
      .method = "GET", .target = target, .token = token, .content_type = "", .body = ""};
  auto reply = admin_exchange(c.admin, c.cacert, request, c.timeout);
  if (!reply) {
    err << "sumcachectl: " << describe(request, c.admin) << ": " << reply.error().message() << "\n";
    return kExitError;
  }
  if (reply->status != 200) {
    err << "sumcachectl: " << describe(request, c.admin) << ": HTTP " << reply->status << " "
        << snippet(reply->body) << "\n";
    return kExitError;
  }
  const auto json = nlohmann::json::parse(reply->body, nullptr, false);
  if (json.is_discarded()) {
    err << "sumcachectl: " << describe(request, c.admin) << ": the body is not JSON\n";
    return kExitError;
  }
  if (c.json) {
    out << reply->body << (reply->body.ends_with('\n') ? "" : "\n");
  } else {
    out << (c.verb == Verb::stats   ? format_stats(json)
            : c.verb == Verb::peers ? format_peers(json)
                                    : format_filter(json));
  }
  return kExitOk;
}

// What `purge` names: {"url": U}, {"tag": T} or {"prefix": P}, as POST /purge takes it.
std::pair<std::string, std::string> purge_target(const CtlCommand& c) {
  if (!c.tag.empty()) return {"tag", c.tag};
  if (!c.prefix.empty()) return {"prefix", c.prefix};
  return {"url", c.url};
}

// The whole answer: what went here, and where the purge took effect.
std::string format_purge(const nlohmann::json& json, const std::string& target) {
  std::ostringstream out;
  const auto number = [&](const nlohmann::json& j, const char* name) {
    return j.is_object() && j.contains(name) && j[name].is_number() ? j[name].dump() : "?";
  };
  out << "purged " << number(json, "purged") << " object(s) here: " << target << "\n";
  nlohmann::json nodes;
  if (json.is_object() && json.contains("nodes")) nodes = json["nodes"];
  out << "nodes: " << number(nodes, "acked") << " of " << number(nodes, "total") << " acknowledged";
  if (nodes.is_object() && nodes.contains("pending") && nodes["pending"].is_array() &&
      !nodes["pending"].empty()) {
    out << "; pending:";
    for (const auto& p : nodes["pending"])
      out << " " << (p.is_string() ? p.get<std::string>() : p.dump());
  }
  out << "\n";
  return out.str();
}

int purge(const CtlCommand& c, const std::string& token, std::ostream& out, std::ostream& err) {
  const auto [member, value] = purge_target(c);
  const std::string target = member == "url" ? value : member + " " + value;
  const AdminRequest request{.method = "POST",
                             .target = "/purge",
                             .token = token,
                             .content_type = "application/json",
                             .body = nlohmann::json{{member, value}}.dump()};
  auto reply = admin_exchange(c.admin, c.cacert, request, c.timeout);
  if (!reply) {
    err << "sumcachectl: " << describe(request, c.admin) << ": " << reply.error().message() << "\n";
    return kExitError;
  }
  if (reply->status != 200 && reply->status != 404) {
    err << "sumcachectl: " << describe(request, c.admin) << ": HTTP " << reply->status << " "
        << (reply->status == 401   ? "(bad or missing token) "
            : reply->status == 403 ? "(purge is off without admin.token, or not in admin.allow) "
                                   : "")
        << snippet(reply->body) << "\n";
    return kExitError;
  }
  const auto json = nlohmann::json::parse(reply->body, nullptr, false);
  if (c.json) {
    out << reply->body << (reply->body.ends_with('\n') ? "" : "\n");
  } else {
    // A 404 still went to every peer, which may have held it: the nodes line says where.
    if (reply->status == 404) out << "not cached here: " << target << "\n";
    out << format_purge(json, target);
  }
  return reply->status == 404 ? kExitNotCached : kExitOk;
}

// peer add / remove: the admin's POST /peers and DELETE /peers/ID.
int change_peer(const CtlCommand& c, const std::string& token, std::ostream& out,
                std::ostream& err) {
  AdminRequest request{.method = "DELETE",
                       .target = "/peers/" + c.peer_id,
                       .token = token,
                       .content_type = {},
                       .body = {}};
  if (c.verb == Verb::peer_add) {
    nlohmann::json entry = {{"id", c.peer_id}, {"host", c.peer_host}};
    if (c.http_port != 0) entry["http_port"] = c.http_port;
    if (c.peer_port != 0) entry["peer_port"] = c.peer_port;
    if (c.icp_port != 0) entry["icp_port"] = c.icp_port;
    if (c.object_port != 0) entry["object_port"] = c.object_port;
    if (c.weight != 0) entry["weight"] = c.weight;
    request = {.method = "POST",
               .target = "/peers",
               .token = token,
               .content_type = "application/json",
               .body = entry.dump()};
  }
  auto reply = admin_exchange(c.admin, c.cacert, request, c.timeout);
  if (!reply) {
    err << "sumcachectl: " << describe(request, c.admin) << ": " << reply.error().message() << "\n";
    return kExitError;
  }
  if (reply->status != 200 && reply->status != 201) {
    err << "sumcachectl: " << describe(request, c.admin) << ": HTTP " << reply->status << " "
        << (reply->status == 401 ? "(bad or missing token) " : "") << snippet(reply->body) << "\n";
    return kExitError;
  }
  out << "peer " << c.peer_id << (c.verb == Verb::peer_add ? " added" : " removed") << "\n";
  return kExitOk;
}

}  // namespace

int run_command(const CtlCommand& c, std::ostream& out, std::ostream& err) {
  if (c.verb == Verb::help) {
    out << kUsage;
    return kExitOk;
  }
  if (c.verb == Verb::bloom_calc) {
    auto calc = bloom_calc({.entries = c.entries,
                            .fpr = c.fpr,
                            .bits_per_entry = c.bits_per_entry,
                            .hashes = c.hashes});
    if (!calc) {
      err << "sumcachectl: bloom-calc: " << calc.error().message() << "\n";
      return kExitError;
    }
    out << format_bloom_calc(*calc);
    return kExitOk;
  }
  auto token = read_token(c);
  if (!token) {
    err << "sumcachectl: " << c.token_file << ": " << token.error().message() << "\n";
    return kExitError;
  }
  if (c.verb == Verb::peer_add || c.verb == Verb::peer_remove) {
    return change_peer(c, *token, out, err);
  }
  return c.verb == Verb::purge ? purge(c, *token, out, err) : show(c, *token, out, err);
}

}  // namespace sumcache::tools
