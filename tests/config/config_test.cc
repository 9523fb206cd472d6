#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "config/config_json.h"
#include "config/default_config.h"
#include "config/load_config.h"
#include "config/peer_entry.h"

namespace sumcache::config {
namespace {

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(SUMCACHE_CONFIG_EXAMPLES_DIR)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::set<std::string> leaf_pointers(const nlohmann::json& j) {
  std::set<std::string> pointers;
  const nlohmann::json flat = j.flatten();
  for (const auto& item : flat.items()) pointers.insert(item.key());
  return pointers;
}

TEST(DefaultConfig, EqualsTheEmbeddedJson) {
  EXPECT_EQ(parse_config(default_config_json(), "<default>"), default_config());
}

TEST(DefaultConfig, EmbeddedJsonSpellsOutEveryField) {
  auto written = nlohmann::json::parse(default_config_json());
  EXPECT_EQ(leaf_pointers(written), leaf_pointers(to_json(default_config(), false)));
}

TEST(DefaultConfig, IsASingleLoopbackForwardProxy) {
  Config c = default_config();
  EXPECT_EQ(c.mode, Mode::forward);
  ASSERT_EQ(c.listen.size(), 1U);
  EXPECT_EQ(c.listen[0], (Endpoint{"127.0.0.1", 3128}));
  EXPECT_EQ(c.cluster.sharing, Sharing::none);
  EXPECT_EQ(c.cluster.miss_policy, MissPolicy::origin);
  // Squid's digest_generation is on by default; a Squid fetches at most every 5 min.
  EXPECT_TRUE(c.cluster.squid_digest.enabled);
  EXPECT_EQ(c.cluster.squid_digest.rebuild_interval_ms, std::chrono::milliseconds(60000));
  EXPECT_TRUE(c.cluster.squid_digest.hostnames.empty());
  EXPECT_TRUE(c.peers.empty());
  // Never an open proxy by default.
  for (const auto& cidr : c.access.allow_clients) {
    EXPECT_NE(cidr, "0.0.0.0/0");
    EXPECT_NE(cidr, "::/0");
  }
  // Summary Cache's parameters: 16 bits per document, 4 hashes.
  EXPECT_EQ(c.filter.bits_per_entry, 16.0);
  EXPECT_EQ(c.filter.hashes, 4U);
}

TEST(ParseConfig, EmptyObjectTakesEveryDefault) {
  EXPECT_EQ(parse_config("{}", "empty"), default_config());
}

TEST(ParseConfig, MissingFieldsKeepTheirDefaults) {
  Config c = parse_config(R"({"limits": {"max_connections": 5}, "cache": {"disk": {}}})", "t");
  Config expected = default_config();
  expected.limits.max_connections = 5;
  EXPECT_EQ(c, expected);
}

TEST(ParseConfig, DenyDestinationsDefaultToLinkLocalAndMayBeEmpty) {
  EXPECT_EQ(default_config().access.deny_destinations,
            (std::vector<std::string>{"169.254.0.0/16", "fe80::/10"}));
  EXPECT_TRUE(parse_config(R"({"access": {"deny_destinations": []}})", "t")
                  .access.deny_destinations.empty());
  const Config c =
      parse_config(R"({"access": {"deny_destinations": ["127.0.0.0/8", "::1/128"]}})", "t");
  EXPECT_EQ(c.access.deny_destinations, (std::vector<std::string>{"127.0.0.0/8", "::1/128"}));
  EXPECT_EQ(c.access.allow_clients, default_config().access.allow_clients);
  // A reverse origin given by name is checked at each connect, not at load.
  EXPECT_NO_THROW(parse_config(
      R"({"mode": "reverse", "reverse": {"origin": "http://metadata.internal"}})", "t"));
}

TEST(ParseConfig, ReadsEveryKindOfValue) {
  Config c = parse_config(R"({
    "node": {"id": "n-1.a_b"}, "mode": "reverse", "workers": 8,
    "listen": [{"address": "::1", "port": 80}, {"port": 81}],
    "reverse": {"origin": "https://[2001:db8::1]:8443/", "host_header": "origin",
                "tls": {"verify": false, "ca_file": "ca.pem", "server_name": "www.example"}},
    "limits": {"client_idle_timeout_ms": 1500, "max_header_bytes": 2048},
    "cache": {"heuristic_fraction": 0.25, "memory": {"max_bytes": "1GiB"}},
    "log": {"level": "debug", "access_log": ""},
    "peers": [{"id": "b", "host": "cache-b.example", "weight": 3}]
  })",
                          "t");
  EXPECT_EQ(c.node.id, "n-1.a_b");
  EXPECT_EQ(c.mode, Mode::reverse);
  EXPECT_EQ(c.workers, 8U);
  EXPECT_EQ(c.listen[1], (Endpoint{"127.0.0.1", 81}));
  EXPECT_EQ(c.reverse.origin, (OriginUrl{Scheme::https, "2001:db8::1", 8443}));
  EXPECT_EQ(c.reverse.host_header, HostHeader::origin);
  EXPECT_FALSE(c.reverse.tls.verify);
  EXPECT_EQ(c.reverse.tls.ca_file, "ca.pem");
  EXPECT_EQ(c.limits.client_idle_timeout_ms, std::chrono::milliseconds(1500));
  EXPECT_EQ(c.limits.max_header_bytes, 2048U);
  EXPECT_EQ(c.cache.heuristic_fraction, 0.25);
  EXPECT_EQ(c.cache.memory.max_bytes, kGiB);
  EXPECT_EQ(c.log.level, LogLevel::debug);
  EXPECT_EQ(c.log.access_log, "");
  ASSERT_EQ(c.peers.size(), 1U);
  EXPECT_EQ(c.peers[0], (PeerConfig{"b", "cache-b.example", 3128, 3130, 3131, 3}));
}

TEST(ParseConfig, OriginPortDefaultsToTheSchemes) {
  auto origin = [](const char* url) {
    std::string text = std::string(R"({"mode": "reverse", "reverse": {"origin": ")") + url + "\"}}";
    return parse_config(text, "t").reverse.origin;
  };
  EXPECT_EQ(origin("http://example.com"), (OriginUrl{Scheme::http, "example.com", 80}));
  EXPECT_EQ(origin("https://example.com"), (OriginUrl{Scheme::https, "example.com", 443}));
}

TEST(ParseConfig, ForwardPortsTakeIntegersAndRanges) {
  Config c = parse_config(R"({"forward": {"allow_ports": [80, "8080", "1025-2000"],
                                          "connect_ports": []}})",
                          "t");
  EXPECT_EQ(c.forward.allow_ports, (std::vector<PortRange>{{80, 80}, {8080, 8080}, {1025, 2000}}));
  EXPECT_TRUE(c.forward.connect_ports.empty());
}

TEST(ParseConfig, FilterEntriesDeriveFromTheCacheBudgets) {
  Config c = default_config();
  // (256 MiB + 1 GiB) / 16 KiB
  EXPECT_EQ(filter_expected_entries(c), 81920U);
  c.cache.disk.enabled = false;
  EXPECT_EQ(filter_expected_entries(c), 16384U);
  c.filter.expected_entries = 1000;
  EXPECT_EQ(filter_expected_entries(c), 1000U);
}

TEST(Examples, EveryExampleLoads) {
  auto files = example_files();
  ASSERT_GE(files.size(), 5U) << SUMCACHE_CONFIG_EXAMPLES_DIR;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    EXPECT_NO_THROW(load_config_file(file));
  }
}

TEST(Examples, ForwardAndReverseAreWhatTheirNamesSay) {
  std::filesystem::path dir = SUMCACHE_CONFIG_EXAMPLES_DIR;
  EXPECT_EQ(load_config_file(dir / "forward.json").mode, Mode::forward);
  Config reverse = load_config_file(dir / "reverse.json");
  EXPECT_EQ(reverse.mode, Mode::reverse);
  EXPECT_EQ(reverse.reverse.origin, (OriginUrl{Scheme::http, "127.0.0.1", 8080}));
}

// "/peers/0/id" -> "peers[].id" and "/admin/allow/1" -> "admin.allow", the way
// docs/configuration.md names fields.
std::string doc_name(const std::string& pointer) {
  std::string name;
  std::size_t start = 1;
  while (start <= pointer.size()) {
    std::size_t end = std::min(pointer.find('/', start), pointer.size());
    std::string segment = pointer.substr(start, end - start);
    bool index = segment.find_first_not_of("0123456789") == std::string::npos;
    if (index && end < pointer.size()) name += "[]";
    if (!index) name += (name.empty() ? "" : ".") + segment;
    start = end + 1;
  }
  return name;
}

TEST(Docs, DescribeEveryField) {
  std::ifstream in(SUMCACHE_CONFIG_DOC);
  ASSERT_TRUE(in) << SUMCACHE_CONFIG_DOC;
  std::stringstream doc;
  doc << in.rdbuf();
  Config reverse = parse_config(R"({"mode": "reverse", "reverse": {"origin": "http://o"},
                                    "peers": [{"id": "p", "host": "h"}]})",
                                "t");
  for (const Config& c : {default_config(), reverse}) {
    for (const std::string& pointer : leaf_pointers(to_json(c, false))) {
      if (pointer == "/peers") continue;  // the empty array
      std::string name = "`" + doc_name(pointer) + "`";
      EXPECT_NE(doc.str().find(name), std::string::npos) << name << " is not in the docs";
    }
  }
}

}  // namespace
}  // namespace sumcache::config

namespace sumcache::config {
namespace {

// The admin's POST /peers reads an entry by the config file's rules, protocol included.
TEST(PeerEntry, ReadsTheProtocol) {
  Config node;
  node.cluster.sharing = Sharing::summary;
  std::string why;
  const auto squid = parse_peer_entry(
      R"({"id": "squid-1", "host": "10.0.0.9", "http_port": 3128, "protocol": "squid-digest"})",
      node, why);
  ASSERT_TRUE(squid) << why;
  EXPECT_EQ(squid->protocol, PeerProtocol::squid_digest);
  const auto plain = parse_peer_entry(R"({"id": "edge-2", "host": "10.0.0.8"})", node, why);
  ASSERT_TRUE(plain) << why;
  EXPECT_EQ(plain->protocol, PeerProtocol::summary);
  EXPECT_FALSE(parse_peer_entry(R"({"id": "x", "host": "h", "protocol": "icp"})", node, why));
  EXPECT_EQ(why, "$.protocol: must be one of \"summary\", \"squid-digest\" (got \"icp\")");
}

// One rule for the file and the admin call (config/peer_checks.h): what the file refuses
// in peers[0] the call refuses at the same field, against the node's config.
TEST(PeerEntry, RefusesWhatTheConfigFileRefuses) {
  const std::string node_json =
      R"("node": {"id": "edge-1"}, "listen": [{"address": "0.0.0.0", "port": 3128}],
         "cluster": {"sharing": "summary", "secret": "0123456789abcdef0123456789abcdef",
                     "peer_listen": {"address": "10.0.0.1", "port": 3130}})";
  const Config node = parse_config("{" + node_json + "}", "node.json");
  struct Case {
    const char* entry;
    const char* field;
    const char* why;
  };
  const Case cases[] = {
      {R"({"id": "meta", "host": "169.254.169.254"})", ".host",
       "169.254.169.254 is inside $.access.deny_destinations[0] (169.254.0.0/16)"},
      {R"({"id": "edge-1", "host": "10.0.0.2"})", ".id", "\"edge-1\" is this node's own id"},
      // The wildcard proxy listener takes loopback; the peer listener its own address.
      {R"({"id": "self", "host": "127.0.0.1", "http_port": 3128})", ".http_port",
       "127.0.0.1 port 3128 is this node's own listener ($.listen[0])"},
      {R"({"id": "self", "host": "10.0.0.1", "http_port": 3138, "peer_port": 3130})", ".peer_port",
       "10.0.0.1 port 3130 is this node's own listener ($.cluster.peer_listen)"},
  };
  for (const Case& c : cases) {
    std::string why;
    EXPECT_FALSE(parse_peer_entry(c.entry, node, why)) << c.entry;
    EXPECT_EQ(why.rfind(std::string("$") + c.field + ": " + c.why, 0), 0U) << why;
    try {
      parse_config("{" + node_json + R"(, "peers": [)" + c.entry + "]}", "file.json");
      ADD_FAILURE() << "the file took " << c.entry;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path(), std::string("$.peers[0]") + c.field) << e.what();
      EXPECT_EQ(e.reason().rfind(c.why, 0), 0U) << e.what();
    }
  }
  // Another node on this host (another port), and a name, are peers.
  std::string why;
  EXPECT_TRUE(parse_peer_entry(R"({"id": "b", "host": "127.0.0.1", "http_port": 3138})", node, why))
      << why;
  EXPECT_TRUE(parse_peer_entry(R"({"id": "c", "host": "localhost", "http_port": 3128})", node, why))
      << why;
}

// cluster.tls is on when the node is given its certificate and key, unless "enabled" says no.
TEST(ParseConfig, ClusterTlsIsOnWhereItsCertificatesAreGiven) {
  const std::string cluster = R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                                              "tls": {)";
  EXPECT_TRUE(parse_config(cluster + R"("cert_file": "n.pem", "key_file": "n.key"}}})", "t")
                  .cluster.tls.enabled);
  EXPECT_FALSE(parse_config(cluster + R"("cert_file": "n.pem", "key_file": "n.key",
                                        "enabled": false}}})",
                            "t")
                   .cluster.tls.enabled);
  EXPECT_FALSE(parse_config(cluster + R"("ca_file": "ca.pem"}}})", "t").cluster.tls.enabled);
  EXPECT_FALSE(parse_config(cluster + R"("cert_file": "n.pem"}}})", "t").cluster.tls.enabled);
  EXPECT_FALSE(parse_config("{}", "t").cluster.tls.enabled);
}

// listen[].tls: the fields as written, the defaults of docs/tls.md for the others.
TEST(ParseConfig, ListenTlsTakesItsCertificatesInOrder) {
  const Config c = parse_config(
      R"({"listen": [{"port": 8443, "tls": {"certificates": [
            {"cert_file": "a.pem", "key_file": "a.key"},
            {"cert_file": "b.pem", "key_file": "b.key", "ocsp_file": "b.der"}],
            "verify_client": "optional", "client_ca_file": "clients.pem"}},
          {"port": 8080}]})",
      "t");
  ASSERT_EQ(c.listen.size(), 2U);
  ASSERT_TRUE(c.listen[0].tls.has_value());
  EXPECT_FALSE(c.listen[1].tls.has_value());
  const ServerTlsConfig& tls = *c.listen[0].tls;
  ASSERT_EQ(tls.certificates.size(), 2U);
  EXPECT_EQ(tls.certificates[1].ocsp_file, "b.der");
  EXPECT_EQ(tls.min_version, TlsVersion::tls1_2);
  EXPECT_EQ(tls.verify_client, VerifyClient::optional);
  EXPECT_EQ(tls.session_cache_size, 20480U);
  EXPECT_FALSE(c.admin.tls.has_value());
}

}  // namespace
}  // namespace sumcache::config
