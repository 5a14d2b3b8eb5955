// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorState.h"

#include <algorithm>

namespace qs::emu::detail {

ServerState::ServerState(ServerConfig config)
    : m_config(std::move(config))
{
}

ServerConfig ServerState::config() const
{
    std::lock_guard lock(m_mutex);
    return m_config;
}

void ServerState::setConfig(ServerConfig config)
{
    std::lock_guard lock(m_mutex);
    m_config = std::move(config);
}

quint64 ServerState::addServed(ServedRequest request)
{
    std::lock_guard lock(m_mutex);
    const quint64 serial = m_nextSerial++;
    request.serial = serial;
    m_served.emplace_back(serial, std::move(request));
    // Dropped in batches of the limit, so a long run pays O(1) per request on average.
    const std::size_t limit = std::max<std::size_t>(m_config.servedLogLimit, 1);
    if (m_served.size() > limit && m_served.size() - limit >= limit) // twice the limit
        m_served.erase(m_served.begin(), m_served.end() - std::ptrdiff_t(limit));
    return serial;
}

ServedRequest* ServerState::find(quint64 serial)
{
    const auto it = std::lower_bound(m_served.begin(), m_served.end(), serial,
        [](const auto& entry, quint64 s) { return entry.first < s; });
    return it != m_served.end() && it->first == serial ? &it->second : nullptr;
}

void ServerState::updateServed(quint64 serial, const std::function<void(ServedRequest&)>& edit)
{
    std::lock_guard lock(m_mutex);
    if (ServedRequest* record = find(serial))
        edit(*record);
}

void ServerState::withServed(quint64 serial, const std::function<void(ServedRequest*)>& fn)
{
    std::lock_guard lock(m_mutex);
    fn(find(serial));
}

std::vector<ServedRequest> ServerState::served() const
{
    std::lock_guard lock(m_mutex);
    std::vector<ServedRequest> out;
    out.reserve(m_served.size());
    for (const auto& entry : m_served)
        out.push_back(entry.second);
    return out;
}

void ServerState::clearServed()
{
    std::lock_guard lock(m_mutex);
    m_served.clear();
}

} // namespace qs::emu::detail
