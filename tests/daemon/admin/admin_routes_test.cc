#include "daemon/admin/admin_routes.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

TEST(AdminRoutes, ReadPathsTakeGetAndHead) {
  for (const char* path :
       {"/", "/stats", "/metrics", "/peers", "/filter", "/healthz", "/readyz", "/config"}) {
    for (const char* method : {"GET", "HEAD"}) {
      const auto r = route_admin(method, path);
      EXPECT_EQ(r.status, 200U) << method << " " << path;
      EXPECT_FALSE(r.changes_state) << path;
    }
    if (std::string_view(path) == "/peers") continue;  // POST adds a peer
    const auto post = route_admin("POST", path);
    EXPECT_EQ(post.status, 405U) << path;
    EXPECT_EQ(post.allow, "GET, HEAD");
  }
  EXPECT_EQ(route_admin("GET", "/metrics").endpoint, AdminEndpoint::metrics);
}

TEST(AdminRoutes, PurgeTakesPostOnlyAndNeedsTheToken) {
  const auto r = route_admin("POST", "/purge");
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.endpoint, AdminEndpoint::purge);
  EXPECT_TRUE(r.changes_state);
  for (const char* method : {"GET", "HEAD", "PURGE", "DELETE"}) {
    const auto wrong = route_admin(method, "/purge");
    EXPECT_EQ(wrong.status, 405U) << method;
    EXPECT_EQ(wrong.allow, "POST");
  }
}

// docs/admin.md: POST /squid-digest rebuilds this node's Squid digest now.
TEST(AdminRoutes, SquidDigestRebuildTakesPostOnlyAndNeedsTheToken) {
  const auto r = route_admin("POST", "/squid-digest");
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.endpoint, AdminEndpoint::squid_digest_rebuild);
  EXPECT_TRUE(r.changes_state);
  for (const char* method : {"GET", "HEAD", "PUT", "DELETE"}) {
    const auto wrong = route_admin(method, "/squid-digest");
    EXPECT_EQ(wrong.status, 405U) << method;
    EXPECT_EQ(wrong.allow, "POST");
  }
}

TEST(AdminRoutes, PeersTakePostToAddAndDeleteToRemoveWithTheToken) {
  const auto add = route_admin("POST", "/peers");
  EXPECT_EQ(add.status, 200U);
  EXPECT_EQ(add.endpoint, AdminEndpoint::peer_add);
  EXPECT_TRUE(add.changes_state);
  EXPECT_EQ(route_admin("PUT", "/peers").status, 405U);
  EXPECT_EQ(route_admin("PUT", "/peers").allow, "GET, HEAD, POST");
  const auto remove = route_admin("DELETE", "/peers/node-d?x=1");
  EXPECT_EQ(remove.status, 200U);
  EXPECT_EQ(remove.endpoint, AdminEndpoint::peer_remove);
  EXPECT_TRUE(remove.changes_state);
  EXPECT_EQ(remove.peer_id, "node-d");
  for (const char* method : {"GET", "POST", "PURGE"}) {
    const auto wrong = route_admin(method, "/peers/node-d");
    EXPECT_EQ(wrong.status, 405U) << method;
    EXPECT_EQ(wrong.allow, "DELETE");
  }
  EXPECT_EQ(route_admin("DELETE", "/peers/").status, 404U);
  EXPECT_EQ(route_admin("DELETE", "/peers/a/b").status, 404U);
  EXPECT_EQ(route_admin("DELETE", "/peers").status, 405U);
}

TEST(AdminRoutes, UnknownPathsAre404WhateverTheMethod) {
  for (const char* path : {"/nope", "/stats/", "/Stats", "//stats", "stats", "/purge/x", ""}) {
    EXPECT_EQ(route_admin("GET", path).status, 404U) << path;
    EXPECT_EQ(route_admin("DELETE", path).status, 404U) << path;
  }
}

TEST(AdminRoutes, TheQueryIsIgnored) {
  EXPECT_EQ(route_admin("GET", "/stats?pretty=1").endpoint, AdminEndpoint::stats);
  EXPECT_EQ(route_admin("GET", "/?x").endpoint, AdminEndpoint::dashboard);
}

}  // namespace
}  // namespace sumcache::daemon
