// SPDX-License-Identifier: MIT
#pragma once
// The soak run's traffic: which emulated servers, and what each request does. Every 100th
// request of an endpoint goes through the same cycle, so any stretch of the run sees every kind:
//   78 fast (48 tokens at 40 tok/s after 80 ms), 4 long (240 tokens at 80 tok/s),
//    6 stalling 2.5 s after 8 tokens (an idle timeout on the SGLang endpoint, whose idle
//      limit is 2 s; slow but complete on the others),
//    3 malformed events, 3 aborted connections, 3 in-stream errors, 2 HTTP 500,
//    1 without the usage chunk.

#include "tests/support/Emulator.h"

#include <QString>
#include <vector>

namespace qs::test {

struct SoakEndpoint {
    QString label;
    emu::ServerConfig config;
    int idleTimeoutMs = 0; ///< the client's idle limit for it; 0: the default
};

/// The three endpoints of a soak run, each with its own request counter for the cycle.
std::vector<SoakEndpoint> soakEndpoints();

/// The suite file's text: one two-turn chat test with `runs` runs and no warm-up.
QByteArray soakSuiteJson(int runs);

} // namespace qs::test
