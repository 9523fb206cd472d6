#pragma once
// A lower layer that reaches up: the include below is what layer_check must refuse.
#include "daemon/high/high.h"
