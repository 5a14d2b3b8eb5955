#pragma once
// What a fuzz target asserts. Not assert(): the fuzz build is RelWithDebInfo (NDEBUG), and a broken
// property must stop libFuzzer with the input saved whatever the build type.

#include <cstdio>
#include <cstdlib>

#define QS_FUZZ_CHECK(condition)                                                                             \
    do {                                                                                                     \
        if (!(condition)) {                                                                                  \
            std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #condition);          \
            std::abort();                                                                                    \
        }                                                                                                    \
    } while (false)
