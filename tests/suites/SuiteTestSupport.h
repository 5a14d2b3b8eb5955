// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Suite.h"

#include <QString>
#include <gtest/gtest.h>
#include <ostream>
#include <string>

QT_BEGIN_NAMESPACE
inline void PrintTo(const QString& s, std::ostream* os)
{
    *os << '"' << s.toStdString() << '"';
}
QT_END_NAMESPACE

namespace qs::test {

inline nlohmann::json parseJson(const char* text)
{
    return nlohmann::json::parse(text);
}

inline Suite parseText(const char* text, const QString& source = QStringLiteral("test.json"))
{
    return parseSuite(parseJson(text), source);
}

/// The SuiteError message for a suite that must be refused; fails the test when it is accepted.
inline std::string errorOf(const nlohmann::json& json, const QString& source = QStringLiteral("test.json"))
{
    try {
        parseSuite(json, source);
    } catch (const SuiteError& e) {
        return e.what();
    }
    ADD_FAILURE() << "the suite was accepted: "
                  << json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return {};
}

/// Same for a file.
template <typename Load> std::string loadError(Load&& load)
{
    try {
        load();
    } catch (const SuiteError& e) {
        return e.what();
    }
    ADD_FAILURE() << "the suite was accepted";
    return {};
}

} // namespace qs::test
