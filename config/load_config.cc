#include "config/load_config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "config/read_config.h"
#include "config/section_readers.h"
#include "config/size_string.h"
#include "config/strict_json.h"

namespace sumcache::config {
namespace {

// Caps keep a mistaken path (a log, /dev/zero) from being read whole.
constexpr std::size_t kMaxConfigBytes = 4 * kMiB;
constexpr std::size_t kMaxSecretBytes = 64 * kKiB;

// The file's contents, or throws at path with the reason it could not be read.
std::string read_file(const std::filesystem::path& file, std::size_t max_bytes,
                      const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw ConfigError(path, "cannot read " + file.string() + ": is a directory");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw ConfigError(path, "cannot read " + file.string() + ": " + std::strerror(errno));
  }
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    throw ConfigError(path, "cannot read " + file.string() + ": " + std::strerror(errno));
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes) {
    throw ConfigError(path, "cannot read " + file.string() + ": larger than " +
                                std::to_string(max_bytes) + " bytes");
  }
  return text;
}

// The secret in file (relative to base), trailing newlines trimmed: editors and `echo` add one.
std::string read_secret(const std::filesystem::path& base, const std::filesystem::path& file,
                        const std::string& path) {
  std::string secret = read_file(base / file, kMaxSecretBytes, path);
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty()) throw ConfigError(path, (base / file).string() + " is empty");
  return secret;
}

// Throws at path unless file (as written: relative to the working directory,
// where the daemon opens it) opens for reading. Only opened: a CA bundle may be large.
void check_readable(const std::filesystem::path& file, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw ConfigError(path, "cannot read " + file.string() + ": is a directory");
  }
  if (!std::ifstream(file, std::ios::binary)) {
    throw ConfigError(path, "cannot read " + file.string() + ": " + std::strerror(errno));
  }
}

// The Redis TLS files are used at each connect, long after start: a missing one is
// better refused with the config than logged at every reconnect.
void check_redis_files(const ClusterConfig& cluster) {
  if (cluster.transport != ClusterTransport::redis) return;
  const RedisConfig& r = cluster.redis;
  for (const auto& [key, file] :
       {std::pair{"ca_file", &r.ca_file}, std::pair{"cert_file", &r.cert_file},
        std::pair{"key_file", &r.key_file}}) {
    if (!file->empty()) check_readable(*file, std::string("$.cluster.redis.") + key);
  }
}

// listen[].tls and admin.tls name their files relative to the config file
// (as nginx does); each is made absolute here so that a reload from another
// working directory reads the same files, and must be readable now.
void resolve_tls_files(const std::filesystem::path& base, ServerTlsConfig& tls,
                       const std::string& path) {
  const auto resolve = [&](std::filesystem::path& file, const std::string& at) {
    if (file.empty()) return;
    // absolute(): a config named by a relative path has a relative base too.
    if (file.is_relative()) file = std::filesystem::absolute(base / file);
    check_readable(file, at);
  };
  for (std::size_t i = 0; i < tls.certificates.size(); ++i) {
    TlsCertificateConfig& c = tls.certificates[i];
    const std::string at = path + ".certificates[" + std::to_string(i) + "]";
    resolve(c.cert_file, at + ".cert_file");
    resolve(c.key_file, at + ".key_file");
    resolve(c.ocsp_file, at + ".ocsp_file");
  }
  resolve(tls.client_ca_file, path + ".client_ca_file");
}

}  // namespace

Config parse_config(std::string_view json_text, std::string_view source_name) {
  try {
    return detail::read_config(detail::parse_strict_json(json_text));
  } catch (const ConfigError& e) {
    throw ConfigError(e.path(), e.reason(), std::string(source_name));
  }
}

Config load_config_file(const std::filesystem::path& file) {
  try {
    Config config = parse_config(read_file(file, kMaxConfigBytes, "$"), file.string());
    std::filesystem::path base = file.parent_path();
    if (!config.admin.token_file.empty()) {
      config.admin.token = read_secret(base, config.admin.token_file, "$.admin.token_file");
    }
    if (!config.cluster.secret_file.empty()) {
      const std::string path = "$.cluster.secret_file";
      config.cluster.secret = read_secret(base, config.cluster.secret_file, path);
      detail::require(path, detail::check_cluster_secret(config.cluster.secret));
    }
    if (!config.cluster.redis.password_file.empty()) {
      config.cluster.redis.password =
          read_secret(base, config.cluster.redis.password_file, "$.cluster.redis.password_file");
    }
    check_redis_files(config.cluster);
    for (std::size_t i = 0; i < config.listen.size(); ++i) {
      if (auto& tls = config.listen[i].tls) {
        resolve_tls_files(base, *tls, "$.listen[" + std::to_string(i) + "].tls");
      }
    }
    if (config.admin.tls) resolve_tls_files(base, *config.admin.tls, "$.admin.tls");
    return config;
  } catch (const ConfigError& e) {
    if (!e.source().empty()) throw;
    throw ConfigError(e.path(), e.reason(), file.string());
  }
}

}  // namespace sumcache::config
