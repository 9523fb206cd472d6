#pragma once
// The JSON spelling of every config enum, in one table per enum, for reading, writing and
// logging them.

#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "config/config.h"

namespace sumcache::config {

template <class E>
struct EnumNames;

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <>
struct EnumNames<Mode> {
  static constexpr NameTable<Mode, 2> kNames{
      {{Mode::forward, "forward"}, {Mode::reverse, "reverse"}}};
};
template <>
struct EnumNames<Scheme> {
  static constexpr NameTable<Scheme, 2> kNames{{{Scheme::http, "http"}, {Scheme::https, "https"}}};
};
template <>
struct EnumNames<HostHeader> {
  static constexpr NameTable<HostHeader, 2> kNames{
      {{HostHeader::keep, "keep"}, {HostHeader::origin, "origin"}}};
};
template <>
struct EnumNames<LogLevel> {
  static constexpr NameTable<LogLevel, 5> kNames{{{LogLevel::trace, "trace"},
                                                  {LogLevel::debug, "debug"},
                                                  {LogLevel::info, "info"},
                                                  {LogLevel::warn, "warn"},
                                                  {LogLevel::error, "error"}}};
};
template <>
struct EnumNames<AccessFormat> {
  static constexpr NameTable<AccessFormat, 2> kNames{
      {{AccessFormat::squid, "squid"}, {AccessFormat::combined, "combined"}}};
};
template <>
struct EnumNames<FilterObjective> {
  static constexpr NameTable<FilterObjective, 2> kNames{
      {{FilterObjective::memory, "memory"}, {FilterObjective::wire, "wire"}}};
};
template <>
struct EnumNames<FilterKind> {
  static constexpr NameTable<FilterKind, 2> kNames{
      {{FilterKind::counting_bloom, "counting-bloom"}, {FilterKind::fingerprint, "fingerprint"}}};
};
template <>
struct EnumNames<TlsVersion> {
  static constexpr NameTable<TlsVersion, 2> kNames{
      {{TlsVersion::tls1_2, "1.2"}, {TlsVersion::tls1_3, "1.3"}}};
};
template <>
struct EnumNames<VerifyClient> {
  static constexpr NameTable<VerifyClient, 3> kNames{
      {{VerifyClient::off, "off"}, {VerifyClient::optional, "optional"}, {VerifyClient::on, "on"}}};
};
template <>
struct EnumNames<Sharing> {
  static constexpr NameTable<Sharing, 3> kNames{
      {{Sharing::none, "none"}, {Sharing::summary, "summary"}, {Sharing::icp, "icp"}}};
};
template <>
struct EnumNames<ClusterTransport> {
  static constexpr NameTable<ClusterTransport, 2> kNames{
      {{ClusterTransport::mesh, "mesh"}, {ClusterTransport::redis, "redis"}}};
};
template <>
struct EnumNames<MissPolicy> {
  static constexpr NameTable<MissPolicy, 2> kNames{
      {{MissPolicy::origin, "origin"}, {MissPolicy::owner, "owner"}}};
};
template <>
struct EnumNames<PeerProtocol> {
  static constexpr NameTable<PeerProtocol, 2> kNames{
      {{PeerProtocol::summary, "summary"}, {PeerProtocol::squid_digest, "squid-digest"}}};
};

template <class E>
constexpr std::string_view enum_name(E value) {
  for (const auto& [v, name] : EnumNames<E>::kNames) {
    if (v == value) return name;
  }
  return "?";
}

template <class E>
constexpr std::optional<E> enum_from_name(std::string_view name) {
  for (const auto& [v, n] : EnumNames<E>::kNames) {
    if (n == name) return v;
  }
  return std::nullopt;
}

}  // namespace sumcache::config
