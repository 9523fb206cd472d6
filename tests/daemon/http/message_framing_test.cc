#include "daemon/http/message_framing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sumcache::daemon {
namespace {

using Kind = BodyFraming::Kind;

BodyFraming none() { return {}; }
BodyFraming length(std::uint64_t n) { return {Kind::length, n}; }
BodyFraming chunked() { return {Kind::chunked, 0}; }
BodyFraming until_close() { return {Kind::until_close, 0}; }
FramingRefusal refused(unsigned status, FramingErrc reason) { return {status, reason}; }

std::string describe(const FramingDecision& d) {
  if (const auto* r = std::get_if<FramingRefusal>(&d)) {
    return std::to_string(r->status) + " " + make_error_code(r->reason).message();
  }
  const auto& f = std::get<BodyFraming>(d);
  switch (f.kind) {
    case Kind::none:
      return "none";
    case Kind::length:
      return "length " + std::to_string(f.length);
    case Kind::chunked:
      return "chunked";
    case Kind::until_close:
      return "until close";
  }
  return "?";
}

struct RequestCase {
  const char* rule;  // the RFC section and what it says
  unsigned version;
  HeaderList fields;
  FramingDecision expected;
};

TEST(MessageFraming, RequestsAreFramedOrRefusedAsRfc9112Says) {
  const HeaderList host = {{"Host", "example.test"}};
  auto with_host = [&host](HeaderList more) {
    HeaderList fields = host;
    fields.insert(fields.end(), more.begin(), more.end());
    return fields;
  };
  const std::vector<RequestCase> cases = {
      {"§6.3 item 7: neither field, no body", 11, host, none()},
      {"§6.3 item 6: Content-Length", 11, with_host({{"Content-Length", "42"}}), length(42)},
      {"§6.3 item 6: zero length", 11, with_host({{"Content-Length", "0"}}), length(0)},
      {"§6.3 item 6: the largest length", 11,
       with_host({{"Content-Length", "18446744073709551615"}}), length(UINT64_MAX)},
      {"§6.3 item 4: chunked", 11, with_host({{"Transfer-Encoding", "chunked"}}), chunked()},
      {"§6.1: coding names are case-insensitive", 11,
       with_host({{"transfer-encoding", " Chunked "}}), chunked()},
      {"§6.3 item 4: chunked not final", 11, with_host({{"Transfer-Encoding", "chunked, gzip"}}),
       refused(400, FramingErrc::chunked_not_final)},
      {"§6.3 item 4: a look-alike is not chunked", 11,
       with_host({{"Transfer-Encoding", "xchunked"}}),
       refused(400, FramingErrc::chunked_not_final)},
      {"§6.3 item 4: gzip alone", 11, with_host({{"Transfer-Encoding", "gzip"}}),
       refused(400, FramingErrc::chunked_not_final)},
      {"§6.3 item 4: identity is no longer a coding", 11,
       with_host({{"Transfer-Encoding", "identity"}}),
       refused(400, FramingErrc::chunked_not_final)},
      {"§6.3 item 4: chunked on a first line, gzip on a second", 11,
       with_host({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "gzip"}}),
       refused(400, FramingErrc::chunked_not_final)},
      {"§6.1: chunked twice", 11, with_host({{"Transfer-Encoding", "chunked, chunked"}}),
       refused(400, FramingErrc::chunked_repeated)},
      {"§6.1: chunked twice on two lines", 11,
       with_host({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}}),
       refused(400, FramingErrc::chunked_repeated)},
      {"§6.1: other codings before chunked: 501, we decode only chunked", 11,
       with_host({{"Transfer-Encoding", "gzip, chunked"}}),
       refused(501, FramingErrc::unsupported_transfer_coding)},
      {"§6.1: a coding on its own line before chunked", 11,
       with_host({{"Transfer-Encoding", "identity"}, {"Transfer-Encoding", "chunked"}}),
       refused(501, FramingErrc::unsupported_transfer_coding)},
      {"§7: chunked takes no parameters", 11, with_host({{"Transfer-Encoding", "chunked;q=1"}}),
       refused(400, FramingErrc::invalid_transfer_encoding)},
      {"§7: a parameter on an earlier coding is valid syntax", 11,
       with_host({{"Transfer-Encoding", "x-custom ; a=\"b,c\", chunked"}}),
       refused(501, FramingErrc::unsupported_transfer_coding)},
      {"§6.1: empty Transfer-Encoding", 11, with_host({{"Transfer-Encoding", " "}}),
       refused(400, FramingErrc::empty_transfer_encoding)},
      {"§6.1: an empty list element", 11, with_host({{"Transfer-Encoding", ", chunked"}}),
       refused(400, FramingErrc::invalid_transfer_encoding)},
      {"§6.1: a trailing comma", 11, with_host({{"Transfer-Encoding", "chunked,"}}),
       refused(400, FramingErrc::invalid_transfer_encoding)},
      {"§6.1: not a token", 11, with_host({{"Transfer-Encoding", "chun ked"}}),
       refused(400, FramingErrc::invalid_transfer_encoding)},
      {"§6.1: Transfer-Encoding in HTTP/1.0",
       10,
       {{"Transfer-Encoding", "chunked"}},
       refused(400, FramingErrc::transfer_encoding_in_http10)},
      {"§6.1: Transfer-Encoding in HTTP/1.0 even with a length",
       10,
       {{"Transfer-Encoding", "chunked"}, {"Content-Length", "3"}},
       refused(400, FramingErrc::transfer_encoding_in_http10)},
      {"§6.1: both fields (as nginx)", 11,
       with_host({{"Transfer-Encoding", "chunked"}, {"Content-Length", "3"}}),
       refused(400, FramingErrc::transfer_encoding_and_content_length)},
      {"§6.1: both, Content-Length first", 11,
       with_host({{"Content-Length", "3"}, {"Transfer-Encoding", "chunked"}}),
       refused(400, FramingErrc::transfer_encoding_and_content_length)},
      {"§6.3 item 4: a look-alike with a length is still refused", 11,
       with_host({{"Transfer-Encoding", "xchunked"}, {"Content-Length", "3"}}),
       refused(400, FramingErrc::chunked_not_final)},
      {"§6.1: both, with a bad length", 11,
       with_host({{"Transfer-Encoding", "chunked"}, {"Content-Length", "x"}}),
       refused(400, FramingErrc::transfer_encoding_and_content_length)},
      {"§6.3 item 5: two equal lines (strict, as nginx)", 11,
       with_host({{"Content-Length", "5"}, {"Content-Length", "5"}}),
       refused(400, FramingErrc::multiple_content_length)},
      {"§6.3 item 5: two different lines", 11,
       with_host({{"Content-Length", "5"}, {"Content-Length", "6"}}),
       refused(400, FramingErrc::multiple_content_length)},
      {"§6.3 item 5: a list of equal values", 11, with_host({{"Content-Length", "5, 5"}}),
       refused(400, FramingErrc::multiple_content_length)},
      {"RFC 9110 §8.6: a sign", 11, with_host({{"Content-Length", "+5"}}),
       refused(400, FramingErrc::invalid_content_length)},
      {"RFC 9110 §8.6: a negative length", 11, with_host({{"Content-Length", "-1"}}),
       refused(400, FramingErrc::invalid_content_length)},
      {"RFC 9110 §8.6: a space inside", 11, with_host({{"Content-Length", "1 2"}}),
       refused(400, FramingErrc::invalid_content_length)},
      {"RFC 9110 §8.6: hexadecimal", 11, with_host({{"Content-Length", "0x10"}}),
       refused(400, FramingErrc::invalid_content_length)},
      {"RFC 9110 §8.6: empty", 11, with_host({{"Content-Length", ""}}),
       refused(400, FramingErrc::invalid_content_length)},
      {"RFC 9110 §8.6: beyond 64 bits", 11, with_host({{"Content-Length", "18446744073709551616"}}),
       refused(400, FramingErrc::invalid_content_length)},
      {"§3.2: HTTP/1.1 without Host",
       11,
       {{"Content-Length", "1"}},
       refused(400, FramingErrc::missing_host)},
      {"§3.2: HTTP/1.0 may omit Host", 10, {}, none()},
      {"§3.2: HTTP/1.0 with a length", 10, {{"Content-Length", "2"}}, length(2)},
      {"§3.2: two Host lines",
       11,
       {{"Host", "a"}, {"host", "a"}},
       refused(400, FramingErrc::multiple_host)},
      {"§3.2: Host with a path", 11, {{"Host", "a/b"}}, refused(400, FramingErrc::invalid_host)},
      {"§3.2: Host with userinfo", 11, {{"Host", "u@a"}}, refused(400, FramingErrc::invalid_host)},
      {"§3.2: Host with a space", 11, {{"Host", "a b"}}, refused(400, FramingErrc::invalid_host)},
      {"§3.2: Host with a bad port",
       11,
       {{"Host", "a:8x"}},
       refused(400, FramingErrc::invalid_host)},
      {"§3.2: Host with a bad escape",
       11,
       {{"Host", "a%zz"}},
       refused(400, FramingErrc::invalid_host)},
      {"issue 27: a percent-encoded Host is another spelling of a plain one",
       11,
       {{"Host", "%61.example"}},
       refused(400, FramingErrc::invalid_host)},
      {"issue 27: a non-ASCII Host (IDNA travels as an A-label)",
       11,
       {{"Host",
         "b\xc3\xbc"
         "cher.example"}},
       refused(400, FramingErrc::invalid_host)},
      {"issue 27: a trailing dot is the same name", 11, {{"Host", "a.example."}}, none()},
      {"§3.2: an empty Host is allowed", 11, {{"Host", ""}}, none()},
      {"§3.2: host and port", 11, {{"Host", "a.example:8080"}}, none()},
      {"§3.2: IPv6 literal and port", 11, {{"Host", "[::1]:8080"}}, none()},
      {"§3.2: IPv6 literal not closed",
       11,
       {{"Host", "[::1"}},
       refused(400, FramingErrc::invalid_host)},
      {"RFC 9110 §2.5: HTTP/2.0 in an HTTP/1 message", 20, host,
       refused(505, FramingErrc::unsupported_version)},
      {"RFC 9110 §2.5: HTTP/0.9", 9, host, refused(505, FramingErrc::unsupported_version)},
      {"RFC 9110 §2.5: a higher minor version is 1.x", 12, host, none()},
      {"other fields do not matter", 11, with_host({{"X-Transfer-Encoding", "gzip"}}), none()},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(describe(request_framing(c.version, c.fields)), describe(c.expected)) << c.rule;
    EXPECT_EQ(request_framing(c.version, c.fields), c.expected) << c.rule;
  }
}

struct ResponseCase {
  const char* rule;
  unsigned version;
  unsigned status;
  const char* method;
  HeaderList fields;
  FramingDecision expected;
};

TEST(MessageFraming, ResponsesWithBadFramingAreA502) {
  const HeaderList bad_framing = {{"Transfer-Encoding", "chunked"}, {"Content-Length", "9"}};
  const std::vector<ResponseCase> cases = {
      {"§6.3 item 6: Content-Length", 11, 200, "GET", {{"Content-Length", "10"}}, length(10)},
      {"§6.3 item 4: chunked", 11, 200, "GET", {{"Transfer-Encoding", "chunked"}}, chunked()},
      {"§6.3 item 8: neither field, until close", 11, 200, "GET", {}, until_close()},
      {"§6.3 item 8: HTTP/1.0 without a length", 10, 200, "GET", {}, until_close()},
      {"§6.3 item 5: equal values are one length",
       11,
       200,
       "GET",
       {{"Content-Length", "7, 7"}, {"Content-Length", "7"}},
       length(7)},
      {"§6.3 item 5: differing lines",
       11,
       200,
       "GET",
       {{"Content-Length", "7"}, {"Content-Length", "8"}},
       refused(502, FramingErrc::differing_content_length)},
      {"§6.3 item 5: a differing list",
       11,
       200,
       "GET",
       {{"Content-Length", "7, 8"}},
       refused(502, FramingErrc::differing_content_length)},
      {"§6.3 item 5: an invalid length",
       11,
       200,
       "GET",
       {{"Content-Length", "7a"}},
       refused(502, FramingErrc::invalid_content_length)},
      {"§6.3 item 5: an empty list member",
       11,
       200,
       "GET",
       {{"Content-Length", "7,"}},
       refused(502, FramingErrc::invalid_content_length)},
      {"§6.3 item 3: both fields", 11, 200, "GET", bad_framing,
       refused(502, FramingErrc::transfer_encoding_and_content_length)},
      {"§6.3 item 3: a look-alike with a length",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", "xchunked"}, {"Content-Length", "3"}},
       refused(502, FramingErrc::transfer_encoding_and_content_length)},
      {"§6.3 item 4: gzip without chunked is read until close",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", "gzip"}},
       until_close()},
      {"§6.3 item 4: chunked not last is read until close",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", "chunked, gzip"}},
       until_close()},
      {"§6.3 item 4: over two lines",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", "gzip"}, {"Transfer-Encoding", "identity"}},
       until_close()},
      {"§6.3 item 4: but not with a length",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", "gzip"}, {"Content-Length", "3"}},
       refused(502, FramingErrc::transfer_encoding_and_content_length)},
      {"§6.3 item 5: codings before chunked would reach the client undecoded",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", "gzip, chunked"}},
       refused(502, FramingErrc::unsupported_transfer_coding)},
      {"§6.1: chunked twice",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", "chunked, chunked"}},
       refused(502, FramingErrc::chunked_repeated)},
      {"§6.1: Transfer-Encoding in HTTP/1.0",
       10,
       200,
       "GET",
       {{"Transfer-Encoding", "chunked"}},
       refused(502, FramingErrc::transfer_encoding_in_http10)},
      {"§6.1: empty Transfer-Encoding",
       11,
       200,
       "GET",
       {{"Transfer-Encoding", ""}},
       refused(502, FramingErrc::empty_transfer_encoding)},
      {"RFC 9110 §2.5: a major version other than 1",
       20,
       200,
       "GET",
       {},
       refused(502, FramingErrc::unsupported_version)},
      {"§6.3 item 1: a response to HEAD has no body", 11, 200, "HEAD", bad_framing, none()},
      {"§6.3 item 1: 1xx has no body", 11, 103, "GET", bad_framing, none()},
      {"§6.3 item 1: 204 has no body", 11, 204, "GET", bad_framing, none()},
      {"§6.3 item 1: 304 has no body", 11, 304, "GET", bad_framing, none()},
      {"§6.3 item 2: a 2xx to CONNECT is a tunnel", 11, 200, "CONNECT", bad_framing, none()},
      {"§6.3 item 2: a refused CONNECT has a body",
       11,
       407,
       "CONNECT",
       {{"Content-Length", "4"}},
       length(4)},
  };
  for (const auto& c : cases) {
    const auto decision = response_framing(c.version, c.status, c.method, c.fields);
    EXPECT_EQ(describe(decision), describe(c.expected)) << c.rule;
    EXPECT_EQ(decision, c.expected) << c.rule;
  }
}

// Issue 27 item 6b: "close" on any Connection line wins over "keep-alive"
// on another (RFC 9112 §9.3, §9.6).
TEST(MessageFraming, CloseOnAnyConnectionLineEndsTheConnection_Rfc9112_9_3) {
  EXPECT_TRUE(connection_persists(11, {}));
  EXPECT_FALSE(connection_persists(10, {}));
  EXPECT_TRUE(connection_persists(10, {{"Connection", "Keep-Alive"}}));
  EXPECT_FALSE(connection_persists(11, {{"Connection", "close"}}));
  EXPECT_FALSE(connection_persists(11, {{"Connection", "keep-alive"}, {"Connection", "close"}}));
  EXPECT_FALSE(connection_persists(11, {{"connection", "keep-alive"}, {"CONNECTION", " Close "}}));
  EXPECT_FALSE(connection_persists(10, {{"Connection", "keep-alive"}, {"Connection", "close"}}));
  EXPECT_FALSE(connection_persists(11, {{"Connection", "x-option, close"}}));
  EXPECT_TRUE(connection_persists(11, {{"Connection", "x-closed, keep-alive"}}));
  EXPECT_TRUE(connection_persists(11, {{"X-Connection", "close"}}));
}

TEST(MessageFraming, EveryRefusalHasAReasonNamingTheField) {
  for (int e = 1; e <= static_cast<int>(FramingErrc::invalid_host); ++e) {
    const std::string message = make_error_code(static_cast<FramingErrc>(e)).message();
    EXPECT_NE(message, "unknown framing error") << e;
    const bool names_something = message.find("Transfer-Encoding") != std::string::npos ||
                                 message.find("Content-Length") != std::string::npos ||
                                 message.find("Host") != std::string::npos ||
                                 message.find("version") != std::string::npos;
    EXPECT_TRUE(names_something) << message;
  }
}

TEST(MessageFraming, UpstreamReadBoundHoldsAFullTrailerSectionAndARelayRead) {
  constexpr std::uint64_t kRelayRead = 64 * 1024;
  for (const std::uint64_t max_header : {1024ULL, 64 * 1024ULL, 1024 * 1024ULL}) {
    EXPECT_GE(upstream_read_bound(max_header), max_header + 2 * kRelayRead) << max_header;
    EXPECT_LE(upstream_read_bound(max_header), max_header + 1024 * 1024) << max_header;
  }
  EXPECT_EQ(make_error_code(FramingErrc::line_too_long).message(),
            "a chunk line or trailer section longer than the proxy holds");
}

}  // namespace
}  // namespace sumcache::daemon
