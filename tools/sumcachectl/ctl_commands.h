#pragma once
// Runs one parsed sumcachectl command and returns the process exit code:
// 0 success; purge 1 when the URL was not cached; 2 any error, with the reason on `err`.

#include <ostream>

#include "tools/sumcachectl/ctl_args.h"

namespace sumcache::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNotCached = 1;
inline constexpr int kExitError = 2;

int run_command(const CtlCommand& command, std::ostream& out, std::ostream& err);

}  // namespace sumcache::tools
