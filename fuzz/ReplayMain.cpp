// SPDX-License-Identifier: MIT
// Runs a fuzz target's LLVMFuzzerTestOneInput over files, without libFuzzer: how the ordinary
// build (gcc, and the asan preset) replays the seeds and every saved crash input under ctest, so a
// fixed crash stays fixed without clang (docs/fuzzing.md). Arguments are files or folders (each
// regular file in a folder, in name order); a folder that does not exist is skipped with a note,
// because a target's regression folder only exists once something was found. No input at all is
// an error: a replay that runs nothing would pass without checking anything.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputsOf(const std::filesystem::path& arg)
{
    std::error_code ec;
    if (std::filesystem::is_regular_file(arg, ec))
        return {arg};
    std::vector<std::filesystem::path> files;
    if (!std::filesystem::is_directory(arg, ec)) {
        std::printf("(no %s: skipped)\n", arg.c_str());
        return files;
    }
    for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file())
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

int main(int argc, char** argv)
{
    std::size_t replayed = 0;
    for (int i = 1; i < argc; ++i) {
        for (const std::filesystem::path& file : inputsOf(argv[i])) {
            std::ifstream in(file, std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (!in.good() && !in.eof()) {
                std::fprintf(stderr, "error: cannot read %s\n", file.c_str());
                return 2;
            }
            // Printed first, so the input that crashes is the last line of the test's output.
            std::printf("%s (%zu bytes)\n", file.c_str(), bytes.size());
            std::fflush(stdout);
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
            ++replayed;
        }
    }
    if (replayed == 0) {
        std::fprintf(stderr, "error: no input to replay among the %d argument(s)\n", argc - 1);
        return 2;
    }
    std::printf("replayed %zu input(s), all held\n", replayed);
    return 0;
}
