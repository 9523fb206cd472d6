// The disk tier across restarts: nothing stored is lost, and a damaged file
// costs only its own object.
#include <fstream>

#include "tests/daemon/integration/proxy_fixture.h"

namespace sumcache::testing {
namespace {

std::vector<std::filesystem::path> object_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    // The store's lock file is not an object.
    if (e.is_regular_file() && e.path().filename() != "lock") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Restart : public ProxyTest {
 protected:
  const std::vector<std::string> paths_ = {"/obj/k1?max_age=600&size=3000",
                                           "/obj/k2?max_age=600&size=4000",
                                           "/obj/k3?max_age=600&size=5000"};
  int hits() {
    int n = 0;
    for (const auto& p : paths_) n += fetch(p).header("X-Cache").value_or("") == "HIT" ? 1 : 0;
    return n;
  }
};

TEST_F(Restart, StoredObjectsSurviveARestart) {
  ASSERT_TRUE(start_proxy());
  std::vector<std::string> bodies;
  for (const auto& p : paths_) bodies.push_back(fetch(p).body);
  stop_proxy();
  ASSERT_TRUE(restart_proxy());
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    const auto r = fetch(paths_[i]);
    EXPECT_EQ(r.header("X-Cache").value_or(""), "HIT") << paths_[i];
    EXPECT_EQ(r.body, bodies[i]);
  }
  EXPECT_EQ(origin_.log().total(), paths_.size());
}

TEST_F(Restart, ADamagedFileIsRemovedAndNothingElseIsLost) {
  ASSERT_TRUE(start_proxy());
  for (const auto& p : paths_) fetch(p);
  stop_proxy();
  auto files = object_files(cache_dir());
  ASSERT_EQ(files.size(), paths_.size());
  {
    std::fstream f(files[1], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(files[1]) / 2));
    f.put('\x7f');
  }
  std::ofstream(files[0].parent_path() / "leftover.tmp") << "partial";
  ASSERT_TRUE(restart_proxy());
  EXPECT_EQ(hits(), 2);
  EXPECT_NE(daemon_log().find(files[1].filename().string()), std::string::npos) << daemon_log();
  EXPECT_FALSE(std::filesystem::exists(files[0].parent_path() / "leftover.tmp"));
  EXPECT_EQ(origin_.log().total(), paths_.size() + 1);
}

}  // namespace
}  // namespace sumcache::testing
