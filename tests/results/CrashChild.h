// SPDX-License-Identifier: MIT
#pragma once

#include <vector>

namespace qs::test {

/// The start of the command line that runs storage_crash_child: the child itself, or in a cross
/// build the emulator ctest runs the tests with first (scripts/check-arm64.sh: under qemu-user an
/// execve of an arm64 binary fails without binfmt_misc, which a chroot cannot count on).
inline std::vector<char*> crashChildCommand()
{
    std::vector<char*> argv;
#ifdef QS_CHILD_EMULATOR
    argv.push_back(const_cast<char*>(QS_CHILD_EMULATOR));
#endif
    argv.push_back(const_cast<char*>(QS_CRASH_CHILD));
    return argv;
}

} // namespace qs::test
