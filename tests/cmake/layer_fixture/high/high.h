#pragma once
// A higher layer including a lower one: allowed.
#include "daemon/low/low.h"
