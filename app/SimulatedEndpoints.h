// SPDX-License-Identifier: MIT
#pragma once

#include "model/Endpoint.h"
#include "tests/support/Emulator.h"

#include <memory>
#include <vector>

namespace qs::app {

/// The embedded default: loopback emulators that behave like the user's real setup (Q4_K_M
/// on llama-server against NVFP4 on vLLM and SGLang), each on its own thread, so Quantscope
/// works on a machine with no inference server. Stopped when this object is destroyed.
class SimulatedEndpoints {
public:
    SimulatedEndpoints();
    ~SimulatedEndpoints();
    /// Starts the emulators; false (and `error`) if a loopback port could not be opened.
    bool start(QString& error);
    const std::vector<Endpoint>& endpoints() const { return m_endpoints; }

private:
    std::vector<std::unique_ptr<emu::EmulatorThread>> m_threads;
    std::vector<Endpoint> m_endpoints;
};

} // namespace qs::app
