// Every class of config error, each with the exact JSON path its message must name.

#include <gtest/gtest.h>

#include "config/load_config.h"

namespace sumcache::config {
namespace {

struct BadConfig {
  const char* name;
  const char* json;
  const char* path;    // ConfigError::path(), and at the start of the message
  const char* reason;  // a part of ConfigError::reason()
};

// Names the case in test output instead of dumping its bytes.
void PrintTo(const BadConfig& bad, std::ostream* out) { *out << bad.name; }  // NOLINT: gtest name

class ConfigErrors : public testing::TestWithParam<BadConfig> {};

TEST_P(ConfigErrors, NameTheJsonPath) {
  const BadConfig& bad = GetParam();
  try {
    parse_config(bad.json, "test.json");
    FAIL() << "accepted: " << bad.json;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), bad.path) << e.what();
    EXPECT_NE(e.reason().find(bad.reason), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()), "test.json: " + e.path() + ": " + e.reason());
  }
}

const BadConfig kBadConfigs[] = {
    // Syntax.
    {"InvalidJson", R"({"mode": )", "$", "invalid JSON: parse error at line 1, column 10"},
    {"RootNotAnObject", "[]", "$", "expected object, got array"},
    {"DuplicateField", R"({"limits": {"max_connections": 1, "max_connections": 2}})",
     "$.limits.max_connections", "field given more than once"},
    {"DuplicateFieldInArray", R"({"peers": [{"id": "a", "host": "h"}, {"id": "b", "id": "c"}]})",
     "$.peers[1].id", "field given more than once"},
    // Unknown fields.
    {"UnknownTopLevelField", R"({"mdoe": "forward"})", "$.mdoe",
     "unknown field (did you mean \"mode\"?)"},
    {"UnknownNestedField", R"({"cache": {"disk": {"pathh": "/x"}}})", "$.cache.disk.pathh",
     "unknown field"},
    {"UnknownFieldWithoutNearName", R"({"limits": {"idle_timeout_ms": 5}})",
     "$.limits.idle_timeout_ms", "unknown field"},
    {"UnknownFieldInArrayElement", R"({"listen": [{"port": 1, "adress": "::1"}]})",
     "$.listen[0].adress", "unknown field (did you mean \"address\"?)"},
    // The tag field must be a field name (RFC 9110 §5.6.2), its bounds in range.
    {"TagHeaderNotAFieldName", R"({"cache": {"tag_header": "Surrogate Key"}})",
     "$.cache.tag_header", "must be a field name"},
    {"TagHeaderEmpty", R"({"cache": {"tag_header": ""}})", "$.cache.tag_header",
     "must be a field name"},
    {"NoTagsPerObject", R"({"cache": {"max_tags_per_object": 0}})", "$.cache.max_tags_per_object",
     ""},
    // A URL keeps at least one variant, and not so many that an insert's walk of them costs.
    {"NoVariantsPerKey", R"({"cache": {"max_variants_per_key": 0}})",
     "$.cache.max_variants_per_key", ""},
    {"TooManyVariantsPerKey", R"({"cache": {"max_variants_per_key": 10001}})",
     "$.cache.max_variants_per_key", ""},
    // Targeted cache-control fields (RFC 9213 §2.1): field names, each once, not Cache-Control.
    {"TargetedFieldNotAFieldName", R"({"cache": {"targeted_fields": ["CDN Cache-Control"]}})",
     "$.cache.targeted_fields[0]", "must be a field name"},
    {"TargetedFieldEmpty", R"({"cache": {"targeted_fields": ["CDN-Cache-Control", ""]}})",
     "$.cache.targeted_fields[1]", "must be a field name"},
    {"TargetedFieldCacheControl", R"({"cache": {"targeted_fields": ["cache-control"]}})",
     "$.cache.targeted_fields[0]", "must not be Cache-Control"},
    {"TargetedFieldTwice",
     R"({"cache": {"targeted_fields": ["CDN-Cache-Control", "A", "cdn-cache-control"]}})",
     "$.cache.targeted_fields[2]", "\"cdn-cache-control\" is listed twice"},
    {"TargetedFieldNotAString", R"({"cache": {"targeted_fields": [1]}})",
     "$.cache.targeted_fields[0]", "expected string"},
    {"TargetedFieldsNotAList", R"({"cache": {"targeted_fields": "CDN-Cache-Control"}})",
     "$.cache.targeted_fields", "expected array, got string"},
    {"TooManyTargetedFields",
     R"({"cache": {"targeted_fields": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}})",
     "$.cache.targeted_fields", "at most 8"},
    // Types.
    {"StringForInteger", R"({"listen": [{"port": "3128"}]})", "$.listen[0].port",
     "expected integer, got string"},
    {"FractionForInteger", R"({"workers": 1.5})", "$.workers", "expected integer, got number"},
    {"IntegerForBoolean", R"({"cache": {"disk": {"fsync": 1}}})", "$.cache.disk.fsync",
     "expected boolean, got integer"},
    {"ArrayForSection", R"({"limits": []})", "$.limits", "expected object, got array"},
    {"ObjectForArray", R"({"listen": {"port": 1}})", "$.listen", "expected array, got object"},
    {"NullForString", R"({"node": {"id": null}})", "$.node.id", "expected string, got null"},
    {"BooleanForSize", R"({"cache": {"max_object_bytes": true}})", "$.cache.max_object_bytes",
     "expected integer or size string, got boolean"},
    // Ranges and syntax of values.
    {"TimeoutZero", R"({"limits": {"client_idle_timeout_ms": 0}})",
     "$.limits.client_idle_timeout_ms", "must be between 1 and 3600000 (got 0)"},
    {"UnsafeReuseNegative", R"({"limits": {"upstream_unsafe_reuse_ms": -1}})",
     "$.limits.upstream_unsafe_reuse_ms", "must be between 0 and 3600000 (got -1)"},
    {"NegativePort", R"({"admin": {"port": -1}})", "$.admin.port",
     "must be between 0 and 65535 (got -1)"},
    {"HugeInteger", R"({"workers": 18446744073709551615})", "$.workers",
     "must be between 0 and 256"},
    {"PeerPortZero", R"({"peers": [{"id": "a", "host": "h", "http_port": 0}]})",
     "$.peers[0].http_port", "must be between 1 and 65535"},
    {"PeerEntryPeerPortZero", R"({"peers": [{"id": "a", "host": "h", "peer_port": 0}]})",
     "$.peers[0].peer_port", "must be between 1 and 65535"},
    {"PeerEntryIcpPortZero", R"({"peers": [{"id": "a", "host": "h", "icp_port": 0}]})",
     "$.peers[0].icp_port", "must be between 1 and 65535"},
    {"PeerIcpSourceNotAnAddress",
     R"({"peers": [{"id": "a", "host": "h", "icp_source_address": "squid.example"}]})",
     "$.peers[0].icp_source_address", "expected an IPv4 or IPv6 address literal"},
    {"PeerListenPortZero", R"({"cluster": {"peer_listen": {"port": 0}}})",
     "$.cluster.peer_listen.port", "must be between 1 and 65535 (got 0): peers connect"},
    {"ClusterIcpPortZero", R"({"cluster": {"icp_port": 0}})", "$.cluster.icp_port",
     "must be between 1 and 65535 (got 0)"},
    {"BitsPerEntryTooFew", R"({"filter": {"bits_per_entry": 2}})", "$.filter.bits_per_entry",
     "must be between 4.0 and 64.0 (got 2)"},
    {"HeaderCapTooSmall", R"({"limits": {"max_header_bytes": "512B"}})",
     "$.limits.max_header_bytes", "must be between 1KiB and 1MiB (got 512B)"},
    {"DecimalSizeUnit", R"({"cache": {"memory": {"max_bytes": "10MB"}}})",
     "$.cache.memory.max_bytes", "ambiguous"},
    {"NegativeSize", R"({"cache": {"max_object_bytes": -5}})", "$.cache.max_object_bytes",
     "must not be negative"},
    {"UnknownEnumName", R"({"mode": "fwd"})", "$.mode",
     "must be one of \"forward\", \"reverse\" (got \"fwd\")"},
    {"BadNodeId", R"({"node": {"id": "my node"}})", "$.node.id", "must be 1 to 64 of"},
    {"EmptyListen", R"({"listen": []})", "$.listen", "at least one address"},
    {"HostNameAsListenAddress", R"({"listen": [{"address": "localhost"}]})", "$.listen[0].address",
     "IPv4 or IPv6 address literal"},
    {"BadCidr", R"({"access": {"allow_clients": ["10.0.0.0"]}})", "$.access.allow_clients[0]",
     "expected a CIDR"},
    {"CidrWithHostBits", R"({"admin": {"allow": ["127.0.0.1/8"]}})", "$.admin.allow[0]",
     "bits set beyond the /8 prefix"},
    {"CidrPrefixTooLong", R"({"access": {"allow_clients": ["::1/129"]}})",
     "$.access.allow_clients[0]", "prefix length must be 0 to 128"},
    {"NoClientsAllowed", R"({"access": {"allow_clients": []}})", "$.access.allow_clients",
     "must not be empty"},
    {"AdminAllowsNobody", R"({"admin": {"allow": []}})", "$.admin.allow", "must not be empty"},
    {"BadDenyDestination", R"({"access": {"deny_destinations": ["169.254.0.0/33"]}})",
     "$.access.deny_destinations[0]", "prefix length must be 0 to 32"},
    {"DenyDestinationNotAString", R"({"access": {"deny_destinations": [10]}})",
     "$.access.deny_destinations[0]", "string"},
    {"ReverseOriginInDenyList",
     R"({"mode": "reverse", "reverse": {"origin": "http://169.254.169.254"}})", "$.reverse.origin",
     "169.254.169.254 is inside $.access.deny_destinations[0] (169.254.0.0/16)"},
    {"PeerInDenyList",
     R"({"access": {"deny_destinations": ["10.0.0.0/8"]}, "peers": [{"id": "a", "host": "10.1.2.3"}]})",
     "$.peers[0].host", "every connect to it would be refused"},
    {"BackwardPortRange", R"({"forward": {"allow_ports": ["80", "2000-1000"]}})",
     "$.forward.allow_ports[1]", "expected a port or a range like \"1025-65535\""},
    {"PortRangeFromZero", R"({"forward": {"allow_ports": ["0-80"]}})", "$.forward.allow_ports[0]",
     "within 1 to 65535"},
    {"BadOriginScheme", R"({"mode": "reverse", "reverse": {"origin": "ftp://a"}})",
     "$.reverse.origin", "expected \"http://host[:port]\""},
    {"OriginWithPath", R"({"mode": "reverse", "reverse": {"origin": "http://a:80/app"}})",
     "$.reverse.origin", "with no path"},
    {"OriginPortZero", R"({"mode": "reverse", "reverse": {"origin": "http://a:0"}})",
     "$.reverse.origin", "expected"},
    {"BadPeerHost", R"({"peers": [{"id": "a", "host": "-bad-"}]})", "$.peers[0].host",
     "DNS host name"},
    {"EmptyErrorLog", R"({"log": {"error_log": ""}})", "$.log.error_log", "must not be empty"},
    {"EmptyDiskPath", R"({"cache": {"disk": {"path": ""}}})", "$.cache.disk.path",
     "must not be empty while the disk tier is enabled"},
    // Contradictions.
    {"ReverseWithoutOrigin", R"({"mode": "reverse"})", "$.reverse.origin",
     "required in reverse mode"},
    {"ReverseSectionInForwardMode", R"({"reverse": {"origin": "http://127.0.0.1:8080"}})",
     "$.reverse", "reverse section given but mode is forward"},
    {"ForwardSectionInReverseMode",
     R"({"mode": "reverse", "reverse": {"origin": "http://a"}, "forward": {}})", "$.forward",
     "forward section given but mode is reverse"},
    {"AdminOnAProxyPort", R"({"admin": {"port": 3128}})", "$.admin.port",
     "port 3128 on 127.0.0.1 collides with $.listen[0] (127.0.0.1)"},
    {"AdminOnTheWildcard", R"({"admin": {"address": "0.0.0.0", "port": 3128}})", "$.admin.port",
     "collides with $.listen[0]"},
    {"SameListenerTwice", R"({"listen": [{"address": "::1"}, {"address": "0:0::1"}]})",
     "$.listen[1].port", "collides with $.listen[0]"},
    {"PeerListenOnAProxyPort",
     R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                     "peer_listen": {"port": 3128}}})",
     "$.cluster.peer_listen.port", "collides with $.listen[0]"},
    {"ObjectListenOnThePeerPort",
     R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                     "object_listen": {"port": 3130},
                     "tls": {"enabled": true, "cert_file": "c", "key_file": "k"}}})",
     "$.cluster.object_listen.port", "collides with $.cluster.peer_listen"},
    {"ObjectListenPortZero", R"({"cluster": {"object_listen": {"port": 0}}})",
     "$.cluster.object_listen.port", "peers connect to a fixed port"},
    {"MemoryBelowMaxObjectWithoutDisk",
     R"({"cache": {"memory": {"max_bytes": "32MiB"}, "max_object_bytes": "64MiB",
                   "disk": {"enabled": false}}})",
     "$.cache.memory.max_bytes",
     "must be at least max_object_bytes (67108864, got 33554432) when the disk tier is disabled"},
    {"DiskBelowMaxObject",
     R"({"cache": {"disk": {"max_bytes": "1MiB"}, "max_object_bytes": "2MiB"}})",
     "$.cache.disk.max_bytes", "must be at least max_object_bytes"},
    {"FilterTooLarge", R"({"filter": {"expected_entries": 274877906944, "bits_per_entry": 8}})",
     "$.filter.expected_entries", "more than 2^40 bits"},
    {"FilterKindUnknown", R"({"filter": {"kind": "cuckoo"}})", "$.filter.kind",
     "must be one of \"counting-bloom\", \"fingerprint\""},
    {"FingerprintUniverseTooLarge",
     R"({"filter": {"kind": "fingerprint", "expected_entries": 10000000000, "target_fpr": 0.001}})",
     "$.filter.expected_entries", "needs a universe above 2^40"},
    {"PeerMaxFingerprintsTooFew", R"({"cluster": {"peer_max_fingerprints": 100}})",
     "$.cluster.peer_max_fingerprints", "must be 0 (derived) or at least 1024"},
    {"DuplicatePeerId",
     R"({"peers": [{"id": "b", "host": "h1"}, {"id": "c", "host": "h2"}, {"id": "b", "host": "h3"}]})",
     "$.peers[2].id", "duplicate peer id \"b\" (also $.peers[0].id)"},
    {"PeerWithOwnId", R"({"node": {"id": "me"}, "peers": [{"id": "me", "host": "h"}]})",
     "$.peers[0].id", "this node's own id"},
    {"PeerIsThisNode",
     R"({"listen": [{"address": "127.0.0.1", "port": 3128}], "peers": [{"id": "a", "host": "127.0.0.1"}]})",
     "$.peers[0].http_port", "127.0.0.1 port 3128 is this node's own listener ($.listen[0])"},
    {"PeerIsThisNodesAdmin", R"({"peers": [{"id": "a", "host": "127.0.0.1", "http_port": 3129}]})",
     "$.peers[0].http_port", "is this node's own listener ($.admin)"},
    {"PeerLinkLocal", R"({"peers": [{"id": "a", "host": "169.254.10.1"}]})", "$.peers[0].host",
     "is inside $.access.deny_destinations[0] (169.254.0.0/16)"},
    {"PeerTwice", R"({"peers": [{"id": "a", "host": "h"}, {"id": "b", "host": "h"}]})",
     "$.peers[1].host", "same host and http_port as $.peers[0]"},
    {"PeerWithoutHost", R"({"peers": [{"id": "a"}]})", "$.peers[0].host", "required"},
    {"PeerProtocolUnknown", R"({"peers": [{"id": "a", "host": "h", "protocol": "htcp"}]})",
     "$.peers[0].protocol", "\"summary\", \"squid-digest\""},
    {"SquidDigestPeerWithoutSummarySharing",
     R"({"cluster": {"sharing": "icp"}, "peers": [{"id": "a", "host": "h", "protocol": "squid-digest"}]})",
     "$.peers[0].protocol", "needs cluster.sharing \"summary\""},
    {"UnknownMissPolicy", R"({"cluster": {"miss_policy": "parent"}})", "$.cluster.miss_policy",
     "must be one of \"origin\", \"owner\" (got \"parent\")"},
    {"SummaryWithoutSecret", R"({"cluster": {"sharing": "summary"}})", "$.cluster.secret",
     "required when sharing is \"summary\""},
    {"ShortSecret", R"({"cluster": {"secret": "hunter2"}})", "$.cluster.secret",
     "must be at least 16 bytes (got 7)"},
    {"SecretAndSecretFile", R"({"cluster": {"secret": "0123456789abcdef", "secret_file": "s"}})",
     "$.cluster.secret_file", "secret and secret_file both given"},
    {"TokenAndTokenFile", R"({"admin": {"token": "t", "token_file": "f"}})", "$.admin.token_file",
     "token and token_file both given"},
    {"ExpiryNotAboveInterval",
     R"({"cluster": {"update_max_interval_ms": 60000, "summary_expiry_ms": 60000}})",
     "$.cluster.summary_expiry_ms", "must be greater than update_max_interval_ms (60000)"},
    {"ClusterTlsWithoutCert", R"({"cluster": {"tls": {"enabled": true, "key_file": "k"}}})",
     "$.cluster.tls.cert_file", "required when enabled"},
    {"PeerFilterBitsTooFew", R"({"cluster": {"peer_max_filter_bits": 100}})",
     "$.cluster.peer_max_filter_bits", "must be 0 (derived) or at least 1024"},
    {"PeerFilterBitsOverDirectory", R"({"cluster": {"peer_max_filter_bits": 268435457}})",
     "$.cluster.peer_max_filter_bits", "must be between 0 and 268435456"},
    {"PeerGraceTooLong", R"({"cluster": {"peer_grace_ms": 86400001}})", "$.cluster.peer_grace_ms",
     "must be between 0 and 86400000"},
    {"DiscoveryWithoutSummary", R"({"cluster": {"discovery": {"name": "peers.example"}}})",
     "$.cluster.discovery.name", "needs sharing \"summary\""},
    {"DiscoveryHostsFileWithoutName", R"({"cluster": {"discovery": {"hosts_file": "/h"}}})",
     "$.cluster.discovery.hosts_file", "needs discovery.name"},
    {"DiscoveryNameNotAHost",
     R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                     "discovery": {"name": "not a name"}}})",
     "$.cluster.discovery.name", ""},
    {"DiscoveryIntervalTooShort", R"({"cluster": {"discovery": {"interval_ms": 10}}})",
     "$.cluster.discovery.interval_ms", "must be between 100 and 3600000"},
    {"SquidDigestIntervalTooShort",
     R"({"cluster": {"squid_digest": {"rebuild_interval_ms": 999}}})",
     "$.cluster.squid_digest.rebuild_interval_ms", "must be between 1000 and 3600000"},
    {"SquidDigestHostnameNotAHost",
     R"({"cluster": {"squid_digest": {"hostnames": ["ok.example", "not a name"]}}})",
     "$.cluster.squid_digest.hostnames[1]", ""},
    {"SquidDigestEnabledNotABoolean", R"({"cluster": {"squid_digest": {"enabled": "yes"}}})",
     "$.cluster.squid_digest.enabled", ""},
    {"SquidDigestUnknownField", R"({"cluster": {"squid_digest": {"rebuild_period": 60}}})",
     "$.cluster.squid_digest.rebuild_period", ""},
    {"PeerAllowNotACidr", R"({"cluster": {"peer_allow": ["10.0.0.0/33"]}})",
     "$.cluster.peer_allow[0]", "prefix length must be 0 to 32"},
    {"PeerSummaryRateZero", R"({"cluster": {"peer_summary_rate": 0}})",
     "$.cluster.peer_summary_rate", "must be between 0.1 and 1000.0"},
    {"PeerHeadTimeoutTooShort", R"({"cluster": {"peer_head_timeout_ms": 1}})",
     "$.cluster.peer_head_timeout_ms", "must be between 10 and 60000"},
    // listen[].tls and admin.tls (docs/tls.md).
    {"TlsWithoutCertificates", R"({"listen": [{"port": 1, "tls": {}}]})",
     "$.listen[0].tls.certificates", "at least one certificate"},
    {"TlsEmptyCertificates", R"({"listen": [{"port": 1, "tls": {"certificates": []}}]})",
     "$.listen[0].tls.certificates", "at least one certificate"},
    {"TlsCertificateWithoutKey",
     R"({"listen": [{"port": 1, "tls": {"certificates": [{"cert_file": "a.pem"}]}}]})",
     "$.listen[0].tls.certificates[0].key_file", "required"},
    {"TlsOldVersion",
     R"({"listen": [{"tls": {"certificates": [{"cert_file": "a", "key_file": "b"}],
                              "min_version": "1.1"}}]})",
     "$.listen[0].tls.min_version", "\"1.2\""},
    {"TlsVerifyClientWithoutCa",
     R"({"admin": {"tls": {"certificates": [{"cert_file": "a", "key_file": "b"}],
                           "verify_client": "on"}}})",
     "$.admin.tls.client_ca_file", "required when verify_client is not off"},
    {"TlsUnknownField",
     R"({"listen": [{"tls": {"certificates": [{"cert_file": "a", "key_file": "b"}],
                              "protocols": "TLSv1.3"}}]})",
     "$.listen[0].tls.protocols", "unknown field"},
    {"TlsEmptyCiphers",
     R"({"listen": [{"tls": {"certificates": [{"cert_file": "a", "key_file": "b"}],
                              "ciphers": ""}}]})",
     "$.listen[0].tls.ciphers", "OpenSSL cipher list"},
};

INSTANTIATE_TEST_SUITE_P(Config, ConfigErrors, testing::ValuesIn(kBadConfigs),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(ConfigErrors, MessageIsSourcePathAndReason) {
  ConfigError e("$.a", "bad", "x.json");
  EXPECT_STREQ(e.what(), "x.json: $.a: bad");
  EXPECT_STREQ(ConfigError("$", "bad").what(), "$: bad");
}

// Near misses of the rules above that must stay valid.
TEST(ConfigErrors, AcceptsWhatOnlyLooksLikeAConflict) {
  const char* valid[] = {
      // Dual stack on one port: IPv6 listeners are IPv6-only.
      R"({"listen": [{"address": "0.0.0.0"}, {"address": "::"}]})",
      // Port 0 asks the kernel for a free port, any number of times.
      R"({"listen": [{"port": 0}, {"port": 0}], "admin": {"port": 0}})",
      // A disabled admin endpoint binds nothing.
      R"({"admin": {"enabled": false, "port": 3128, "allow": []}})",
      // Without summary sharing, peer_listen binds nothing.
      R"({"cluster": {"peer_listen": {"port": 3128}}})",
      // Without cluster TLS, object_listen binds nothing.
      R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                      "object_listen": {"port": 3130}}})",
      // Peers may stay listed while sharing is off; a secret may come from a file.
      R"({"peers": [{"id": "a", "host": "10.0.0.2"}],
          "cluster": {"sharing": "summary", "secret_file": "cluster.key"}})",
      // An empty token or secret is not given.
      R"({"admin": {"token": "", "token_file": "t"}})",
      // With a disk tier, objects larger than the memory tier live on disk only.
      R"({"cache": {"memory": {"max_bytes": "8MiB"}, "max_object_bytes": "1GiB",
                    "disk": {"enabled": true, "max_bytes": "2GiB"}}})",
      // A disabled disk tier needs no budget for the largest object.
      R"({"cache": {"disk": {"enabled": false, "max_bytes": "1MiB"}}})",
      // Discovery with a hosts file, and with no static peers at all.
      R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef", "peer_grace_ms": 0,
                      "discovery": {"name": "peers.example", "hosts_file": "/etc/hosts",
                                    "interval_ms": 1000}}})",
      // The operator may open the proxy to everyone by saying so.
      R"({"access": {"allow_clients": ["0.0.0.0/0", "::/0"]}})",
  };
  for (const char* json : valid) EXPECT_NO_THROW(parse_config(json, "t")) << json;
}

}  // namespace
}  // namespace sumcache::config
