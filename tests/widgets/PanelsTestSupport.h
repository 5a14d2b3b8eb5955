// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the panel tests (endpoint editor, endpoints panel, run panel): the simulated
// profiles the editor offers, the fixture's endpoints as the panel keeps them, and a panel's
// child widgets found by object name or by button text.
#include "model/store/ResultFile.h"
#include "widgets/panels/EndpointEntry.h"

#include <QPushButton>
#include <QString>
#include <QWidget>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace qs::test {

inline const std::vector<std::pair<QString, QString>> profiles {
    {QStringLiteral("nvfp4-like"), QStringLiteral("simulated NVFP4 on vLLM: fast TTFT, 20 tok/s, leaks")},
    {QStringLiteral("q4km-like"), QStringLiteral("simulated Q4_K_M on llama-server: 38 tok/s, clean")},
};

inline QString str(const nlohmann::json& j, const char* key)
{
    return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>())
                                                 : QString();
}

/// The fixture's endpoints as the panel keeps them ("sim:q4km-like" → simulated entry).
inline std::vector<EndpointEntry> fixtureEntries(const RunResult& run)
{
    std::vector<EndpointEntry> out;
    for (const RunEndpoint& e : run.endpoints) {
        EndpointEntry entry;
        entry.endpoint = e.endpoint;
        if (e.spec.startsWith(u"sim:")) {
            entry.simulatedProfile = e.spec.mid(4);
            entry.endpoint.baseUrl = QUrl();
        }
        out.push_back(entry);
    }
    return out;
}

template <typename T> T* child(QWidget* w, const char* name)
{
    T* c = w->findChild<T*>(QString::fromLatin1(name));
    if (!c)
        qFatal("no child %s", name);
    return c;
}

inline QPushButton* buttonNamed(QWidget* w, const QString& text)
{
    for (QPushButton* b : w->findChildren<QPushButton*>())
        if (b->text().remove(u'&') == text)
            return b;
    qFatal("no button %s", qPrintable(text));
    return nullptr;
}

} // namespace qs::test
