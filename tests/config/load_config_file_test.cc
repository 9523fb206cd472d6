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
