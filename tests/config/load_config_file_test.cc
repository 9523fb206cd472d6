#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/load_config.h"
#include "tests/support/temp_dir.h"

namespace sumcache::config {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class LoadConfigFile : public ::testing::Test {
 protected:
  fs::path write(const fs::path& name, const std::string& text) {
    fs::path file = dir_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

  // The error load_config_file throws for file.
  static ConfigError error_of(const fs::path& file) {
    try {
      load_config_file(file);
    } catch (const ConfigError& e) {
      return e;
    }
    ADD_FAILURE() << "loaded " << file;
    return ConfigError("", "");
  }

  const sumcache::testing::TempDir tmp_;
  const fs::path dir_ = tmp_.path();
};

constexpr const char* kWithSecretFiles = R"({
  "admin": {"token_file": "secrets/admin.token"},
  "cluster": {"sharing": "summary", "secret_file": "secrets/cluster.key"}
})";

TEST_F(LoadConfigFile, ReadsSecretFilesBesideTheConfigAndTrimsTheNewline) {
  write("secrets/admin.token", "s3cret-token\n");
  write("secrets/cluster.key", "0123456789abcdef0123\r\n");
  fs::path file = write("etc/../sumcache.json", kWithSecretFiles);
  Config c = load_config_file(file);
  EXPECT_EQ(c.admin.token, "s3cret-token");
  EXPECT_EQ(c.admin.token_file, "secrets/admin.token");  // as written
  EXPECT_EQ(c.cluster.secret, "0123456789abcdef0123");
}

TEST_F(LoadConfigFile, TakesAbsoluteSecretPathsAsGiven) {
  fs::path token = write("elsewhere/token", "abc");
  fs::path file =
      write("conf/sumcache.json", R"({"admin": {"token_file": ")" + token.string() + R"("}})");
  EXPECT_EQ(load_config_file(file).admin.token, "abc");
}

TEST_F(LoadConfigFile, MissingSecretFileNamesItsField) {
  write("secrets/cluster.key", "0123456789abcdef");
  fs::path file = write("sumcache.json", kWithSecretFiles);
  ConfigError e = error_of(file);
  EXPECT_EQ(e.path(), "$.admin.token_file");
  EXPECT_NE(e.reason().find("secrets/admin.token"), std::string::npos) << e.what();
  EXPECT_NE(e.reason().find("No such file"), std::string::npos) << e.what();
  EXPECT_EQ(e.source(), file.string());
}

TEST_F(LoadConfigFile, EmptySecretFileIsAnError) {
  write("secrets/admin.token", "\n");
  write("secrets/cluster.key", "0123456789abcdef");
  ConfigError e = error_of(write("sumcache.json", kWithSecretFiles));
  EXPECT_EQ(e.path(), "$.admin.token_file");
  EXPECT_NE(e.reason().find("is empty"), std::string::npos) << e.what();
}

TEST_F(LoadConfigFile, ShortSecretFromAFileIsAnError) {
  write("secrets/admin.token", "t");
  write("secrets/cluster.key", "short\n");
  ConfigError e = error_of(write("sumcache.json", kWithSecretFiles));
  EXPECT_EQ(e.path(), "$.cluster.secret_file");
  EXPECT_NE(e.reason().find("at least 16 bytes"), std::string::npos) << e.what();
}

TEST_F(LoadConfigFile, DirectoryAsSecretFileIsAnError) {
  fs::create_directories(dir_ / "secrets/admin.token");
  ConfigError e =
      error_of(write("sumcache.json", R"({"admin": {"token_file": "secrets/admin.token"}})"));
  EXPECT_EQ(e.path(), "$.admin.token_file");
  EXPECT_NE(e.reason().find("is a directory"), std::string::npos) << e.what();
}

constexpr const char* kWithRedisPasswordFile = R"({
  "cluster": {"sharing": "summary", "secret": "0123456789abcdef", "transport": "redis",
              "redis": {"servers": [{"address": "127.0.0.1"}], "username": "sumcache",
                        "password_file": "secrets/redis.pass"}}
})";

TEST_F(LoadConfigFile, ReadsTheRedisPasswordFileBesideTheConfig) {
  write("conf/secrets/redis.pass", "a redis password\n");
  const Config c = load_config_file(write("conf/sumcache.json", kWithRedisPasswordFile));
  EXPECT_EQ(c.cluster.redis.password, "a redis password");
  EXPECT_EQ(c.cluster.redis.password_file, "secrets/redis.pass");  // as written
  EXPECT_EQ(c.cluster.redis.username, "sumcache");
}

TEST_F(LoadConfigFile, MissingOrEmptyRedisPasswordFileNamesItsField) {
  const fs::path file = write("sumcache.json", kWithRedisPasswordFile);
  ConfigError missing = error_of(file);
  EXPECT_EQ(missing.path(), "$.cluster.redis.password_file");
  EXPECT_NE(missing.reason().find("secrets/redis.pass"), std::string::npos) << missing.what();
  EXPECT_NE(missing.reason().find("No such file"), std::string::npos) << missing.what();
  write("secrets/redis.pass", "\r\n");
  ConfigError empty = error_of(file);
  EXPECT_EQ(empty.path(), "$.cluster.redis.password_file");
  EXPECT_NE(empty.reason().find("is empty"), std::string::npos) << empty.what();
}

// The Redis TLS files open at each connect: a missing one is refused with the config.
TEST_F(LoadConfigFile, RedisTlsFilesMustOpen) {
  const fs::path ca = write("tls/ca.pem", "ca");
  const fs::path cert = write("tls/client.pem", "cert");
  const fs::path key = write("tls/client.key", "key");
  const auto config = [&](const fs::path& ca_file, const char* transport) {
    return write("sumcache.json",
                 std::string(R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                    "transport": ")") +
                     transport + R"(", "redis": {"servers": [{"address": "r"}],
                    "tls": true, "ca_file": ")" +
                     ca_file.string() + R"(", "cert_file": ")" + cert.string() +
                     R"(", "key_file": ")" + key.string() + R"("}}})");
  };
  EXPECT_EQ(load_config_file(config(ca, "redis")).cluster.redis.ca_file, ca);
  ConfigError missing = error_of(config(dir_ / "tls/absent.pem", "redis"));
  EXPECT_EQ(missing.path(), "$.cluster.redis.ca_file");
  EXPECT_NE(missing.reason().find("absent.pem: No such file"), std::string::npos) << missing.what();
  ConfigError directory = error_of(config(dir_ / "tls", "redis"));
  EXPECT_EQ(directory.path(), "$.cluster.redis.ca_file");
  EXPECT_NE(directory.reason().find("is a directory"), std::string::npos) << directory.what();
  fs::remove(key);
  EXPECT_EQ(error_of(config(ca, "redis")).path(), "$.cluster.redis.key_file");
  // The mesh transport opens none of them.
  EXPECT_NO_THROW(load_config_file(config(dir_ / "tls/absent.pem", "mesh")));
}

// listen[].tls and admin.tls files: relative to the config file's directory, made absolute
// (a config named by a relative path included), and each must open.
TEST_F(LoadConfigFile, TlsFilesAreFoundBesideTheConfigAndMadeAbsolute) {
  write("tls/site.pem", "cert");
  write("tls/site.key", "key");
  const fs::path file = write("etc/sumcache.json", R"({
    "listen": [{"tls": {"certificates": [{"cert_file": "../tls/site.pem",
                                          "key_file": "../tls/site.key"}]}}],
    "admin": {"tls": {"certificates": [{"cert_file": "../tls/site.pem",
                                        "key_file": "../tls/absent.key"}]}}})");
  const ConfigError missing = error_of(file);
  EXPECT_EQ(missing.path(), "$.admin.tls.certificates[0].key_file") << missing.what();
  write("tls/absent.key", "key");
  // Named relative to the working directory, as `sumcached --config etc/sumcache.json` does.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  const Config c = load_config_file("etc/sumcache.json");
  fs::current_path(cwd);
  const fs::path cert = c.listen[0].tls->certificates[0].cert_file;
  EXPECT_TRUE(cert.is_absolute()) << cert;
  EXPECT_TRUE(fs::equivalent(cert, dir_ / "tls/site.pem")) << cert;
}

TEST_F(LoadConfigFile, MissingConfigFileIsAnErrorAtTheRoot) {
  ConfigError e = error_of(dir_ / "absent.json");
  EXPECT_EQ(e.path(), "$");
  EXPECT_NE(std::string(e.what()).find("absent.json"), std::string::npos) << e.what();
}

TEST_F(LoadConfigFile, ErrorsNameTheFile) {
  fs::path file = write("bad.json", R"({"workers": -1})");
  ConfigError e = error_of(file);
  EXPECT_EQ(e.source(), file.string());
  EXPECT_EQ(std::string(e.what()), file.string() + ": $.workers: " + e.reason());
}

}  // namespace
}  // namespace sumcache::config
