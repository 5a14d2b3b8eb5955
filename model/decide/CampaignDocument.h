// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Campaign.h"
#include "model/decide/Report.h"

#include <QDateTime>
#include <QString>

namespace qs {

// The campaign document (`quantscope campaign … --out FILE.md|.html|.pdf`): the history a blog
// post tells. In order: the title and the answer so far (the best attempt, or why none is); the
// attempts in time order (when, file, candidate, decision, best so far); the story — per attempt
// its notes, what changed since the one before, its headline and the criteria it failed or left
// open, with the numbers; every criterion's figure across attempts (the trend, with intervals);
// who leads on each criterion; the baseline's drift between files, moved rows first; notes and
// how the campaign decides. Written once as a report::Doc and rendered to Markdown or HTML, so
// the formats never disagree.

struct CampaignDocumentInput {
    const Campaign* campaign = nullptr;
    QDateTime generatedAt;
    QString generator = QStringLiteral("quantscope");
};

QString campaignTitle(const Campaign& campaign); ///< "Campaign: replacing Q4_K_M (3 attempts)"
QString campaignMarkdown(const CampaignDocumentInput& input);
QString campaignHtml(const CampaignDocumentInput& input, HtmlFlavor flavor = HtmlFlavor::Browser);

/// A criterion's figure as a table cell: "1.02 [0.95–1.10]", else the measured text.
QString criterionFigure(const CriterionResult& result);

} // namespace qs
