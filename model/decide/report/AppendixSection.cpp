// SPDX-License-Identifier: MIT
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"
#include "model/store/ResultFile.h"

using namespace Qt::StringLiterals;

namespace qs::report {

void appendixSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Appendix"_s);
    heading(d, 3, u"A. Server properties"_s);
    paragraph(d,
        line(u"What each endpoint's probe found before the run (health, models, runtime, context, "
             "the runtime's own properties). Long strings such as chat templates are shortened."_s));
    for (int e = 0; e < int(cx.run.endpoints.size()); ++e) {
        const RunEndpoint& ep = cx.run.endpoints[std::size_t(e)];
        heading(d, 4, cx.label(e));
        nlohmann::json j = shortened(ep.probe, 600);
        codeBlock(d, jsonText(j), u"json"_s);
    }

    heading(d, 3, u"B. Request settings"_s);
    paragraph(d, line(u"The run's settings (-1 = the suite's value per test):"_s));
    const nlohmann::json header = headerToJson(cx.run);
    codeBlock(d, jsonText(header.value("settings", nlohmann::json::object())), u"json"_s);
    if (cx.run.suite.is_object() && cx.run.suite.contains("defaults")) {
        paragraph(d, line(u"The suite's defaults:"_s));
        codeBlock(d, jsonText(cx.run.suite.at("defaults")), u"json"_s);
    }
    for (int e = 0; e < int(cx.run.endpoints.size()); ++e) {
        const RunRecord* example = nullptr;
        for (const RunRecord& r : cx.run.records)
            if (r.endpoint == e && !r.warmup && !r.request.requestBody->is_null()) {
                example = &r;
                break;
            }
        if (!example)
            continue;
        paragraph(d,
            {plain(u"An example request body sent to "_s + cx.label(e) + u" (test "_s), code(example->test),
                plain(u", turn "_s + QString::number(example->turn) + u"):"_s)});
        codeBlock(d, jsonText(shortened(example->request.requestBody, 400)), u"json"_s);
    }

    heading(d, 3, u"C. Decision profile as loaded"_s);
    codeBlock(
        d, jsonText(cx.in.profile.raw.is_null() ? nlohmann::json::object() : cx.in.profile.raw), u"json"_s);

    heading(d, 3, u"D. Reproducing this document"_s);
    QString cmd = u"quantscope run --suite "_s + field(cx.run.suite, "id", u"SUITE"_s);
    for (const RunEndpoint& ep : cx.run.endpoints)
        cmd += u" \\\n  --endpoint 'name="_s + ep.endpoint.displayName() + u",url="_s
            + (ep.spec.isEmpty() ? ep.endpoint.baseUrl.toString() : ep.spec)
            + (ep.endpoint.model.isEmpty() || ep.simulated ? QString() : u",model="_s + ep.endpoint.model)
            + u"'"_s;
    const RunSettings& s = cx.run.settings;
    if (s.warmup >= 0)
        cmd += u" --warmup "_s + QString::number(s.warmup);
    if (s.runs >= 0)
        cmd += u" --runs "_s + QString::number(s.runs);
    cmd += u" \\\n  --order "_s + runOrderId(s.order) + u" --seed "_s + QString::number(s.seed);
    if (s.concurrency != 1)
        cmd += u" --concurrency "_s + QString::number(s.concurrency);
    if (s.maxTokens)
        cmd += u" --max-tokens "_s + QString::number(*s.maxTokens);
    cmd += u" --out run.json\nquantscope report run.json --profile "_s
        + (cx.in.profile.id.isEmpty() ? u"PROFILE"_s : cx.in.profile.id)
        + u" --format pdf --out report.pdf\n"_s;
    codeBlock(d, cmd, u"sh"_s);
    paragraph(d,
        line(u"Results written by "_s + (cx.run.toolVersion.isEmpty() ? u"quantscope"_s : cx.run.toolVersion)
            + u"; run "_s + cx.run.startedAt.toUTC().toString(Qt::ISODate) + u" to "_s
            + (cx.run.endedAt.isValid() ? cx.run.endedAt.toUTC().toString(Qt::ISODate) : u"(not finished)"_s)
            + u"."_s));
    for (const QString& note : cx.ev.notes)
        paragraph(d, {italic(u"Note: "_s), plain(note)});
}

} // namespace qs::report
