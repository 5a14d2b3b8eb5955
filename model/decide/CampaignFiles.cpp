// SPDX-License-Identifier: MIT
// The results files a campaign is made of: named files, and the results files in named folders.
#include "model/decide/Campaign.h"
#include "model/evaluate/Evaluation.h"
#include "model/store/ResultFile.h"

#include <QDir>
#include <QFileInfo>

namespace qs {

std::vector<CampaignFile> loadCampaignFiles(const QStringList& paths, QStringList* notes)
{
    std::vector<CampaignFile> files;
    const auto load = [&](const QString& path) {
        CampaignFile f;
        f.path = path;
        f.result = loadResults(path);
        if (const QString note = ensureGates(f.result); !note.isEmpty() && notes)
            *notes << QFileInfo(path).fileName() + QStringLiteral(": ") + note;
        files.push_back(std::move(f));
    };
    for (const QString& path : paths) {
        const QFileInfo info(path);
        if (!info.exists())
            throw CampaignError(QStringLiteral("%1: no such file or folder").arg(path).toStdString());
        if (!info.isDir()) {
            load(path);
            continue;
        }
        const QDir dir(path);
        int found = 0;
        for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            try {
                load(dir.filePath(name));
                ++found;
            } catch (const ResultFileError& e) {
                if (e.kind() != ResultFileError::Kind::NotResults
                    && e.kind() != ResultFileError::Kind::NotJson)
                    throw;
                if (notes)
                    *notes << QStringLiteral("%1: skipped, not a results file").arg(dir.filePath(name));
            }
        }
        if (found == 0)
            throw CampaignError(QStringLiteral(
                "%1: no results file in this folder (quantscope run --out FOLDER/NAME.json writes one)")
                                    .arg(path)
                                    .toStdString());
    }
    return files;
}

} // namespace qs
