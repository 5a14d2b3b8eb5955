// SPDX-License-Identifier: MIT
#include "ResultsTestSupport.h"
