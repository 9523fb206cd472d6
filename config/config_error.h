#pragma once
// The one error of config loading. Exceptions are the error mechanism here because config is
// only loaded at startup and on SIGHUP, where the answer to any error is to refuse the config.

#include <stdexcept>
#include <string>

namespace sumcache::config {

// what() reads "<source>: <path>: <reason>", for example
// "sumcache.json: $.limits.client_idle_timeout_ms: must be between 1 and 3600000 (got 0)".
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string path, std::string reason, std::string source = {});

  const std::string& path() const { return path_; }      // JSON path, "$" for the whole file
  const std::string& reason() const { return reason_; }  // what is wrong there
  const std::string& source() const { return source_; }  // file or other name; may be empty

 private:
  std::string path_;
  std::string reason_;
  std::string source_;
};

}  // namespace sumcache::config
