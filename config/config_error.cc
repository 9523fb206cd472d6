#include "config/config_error.h"

#include <utility>

namespace sumcache::config {
namespace {

std::string message(const std::string& path, const std::string& reason, const std::string& source) {
  std::string text = source.empty() ? std::string{} : source + ": ";
  return text + path + ": " + reason;
}

}  // namespace

ConfigError::ConfigError(std::string path, std::string reason, std::string source)
    : std::runtime_error(message(path, reason, source)),
      path_(std::move(path)),
      reason_(std::move(reason)),
      source_(std::move(source)) {}

}  // namespace sumcache::config
