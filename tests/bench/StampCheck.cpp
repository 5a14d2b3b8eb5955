// SPDX-License-Identifier: MIT
#include "tests/bench/StampCheck.h"

#include "model/core/Clock.h"
#include "model/wire/HttpConnection.h"

#include <QEventLoop>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace qs::bench {

StampCheck checkStamps(const std::vector<const RequestRecord*>& records,
    const std::vector<emu::ServedRequest>& served, bool numbered)
{
    StampCheck check;
    std::unordered_map<QString, const emu::ServedRequest*> byId;
    for (const emu::ServedRequest& s : served) {
        check.writtenEvents += qint64(s.tokenWriteNs.size());
        if (!s.completionId.isEmpty())
            byId.emplace(QString::fromLatin1(s.completionId), &s);
    }
    for (const RequestRecord* r : records) {
        ++check.records;
        if (!r->ok())
            ++check.failedRecords;
        const AssembledResponse& response = r->response;
        const auto it = byId.find(response.responseId);
        if (response.responseId.isEmpty() || it == byId.end()) {
            ++check.unmatchedRecords;
            continue;
        }
        const emu::ServedRequest& s = *it->second;
        byId.erase(it); // a second record with the same id is unmatched, not double-counted
        const std::vector<TokenEvent>& events = response.tokenEvents;
        const std::size_t written = s.tokenWriteNs.size();
        check.receivedEvents += qint64(events.size());
        if (events.size() < written)
            check.lostEvents += qint64(written - events.size());
        else if (numbered)
            check.misattributedEvents += qint64(events.size() - written);
        for (std::size_t k = 0; k < events.size() && k < written; ++k) {
            check.stampErrorMs.push_back(msBetween(s.tokenWriteNs[k], events[k].stampNs));
            if (!numbered)
                continue;
            const TokenEvent& e = events[k];
            const QString expected = QStringLiteral("r%1t%2 ").arg(s.serial).arg(k);
            if (QStringView(response.content).sliced(e.contentBegin, e.contentEnd - e.contentBegin)
                != expected)
                ++check.misattributedEvents;
        }
    }
    // What is left in byId was served (or at least begun) and no record holds it.
    for (const auto& [id, s] : byId) {
        if (s->request.stream) {
            ++check.unansweredServed;
            check.lostEvents += qint64(s->tokenWriteNs.size());
        }
    }
    return check;
}

std::vector<emu::ServedRequest> parseServedLog(const QByteArray& json, QString* error)
{
    std::vector<emu::ServedRequest> out;
    const auto root = nlohmann::json::parse(json.constBegin(), json.constEnd(), nullptr, false);
    if (!root.is_object() || !root.contains("requests") || !root["requests"].is_array()) {
        if (error)
            *error
                = QStringLiteral("not an emulator served log (is the emulator running with --served-log?)");
        return out;
    }
    for (const auto& r : root["requests"]) {
        emu::ServedRequest s;
        s.serial = r.value("serial", quint64(0));
        s.completionId = QByteArray::fromStdString(r.value("id", std::string()));
        s.httpStatus = r.value("status", 0);
        s.receivedNs = r.value("received_ns", qint64(0));
        s.endNs = r.value("end_ns", qint64(0));
        s.tokenWriteNs = r.value("token_write_ns", std::vector<qint64>());
        s.request.stream = true; // the log lists chat requests; the benchmarks only stream
        out.push_back(std::move(s));
    }
    return out;
}

QByteArray fetchServedLog(const QUrl& baseUrl, QString* error)
{
    HttpConnection connection;
    HttpConnection::Request request;
    request.url = baseUrl;
    request.url.setPath(QStringLiteral("/emulator/served"));
    request.timeouts.totalMs = 60000;
    QByteArray body;
    connection.onBody = [&](QByteArrayView piece, qint64) { body.append(piece); };
    QEventLoop loop;
    QObject::connect(&connection, &HttpConnection::finished, &loop, &QEventLoop::quit);
    connection.start(std::move(request));
    if (connection.busy())
        loop.exec();
    if (connection.failure().isFailure() || connection.response().statusCode() != 200) {
        if (error)
            *error = connection.failure().isFailure()
                ? connection.failure().summary
                : QStringLiteral(
                    "GET /emulator/served answered HTTP %1 (start the emulator with --served-log)")
                      .arg(connection.response().statusCode());
        return {};
    }
    return body;
}

} // namespace qs::bench
