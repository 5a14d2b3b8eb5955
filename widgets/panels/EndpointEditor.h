// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/panels/EndpointEntry.h"

#include <QDialog>
#include <vector>

namespace qs {

/// Edits every field of an endpoint: label, base URL, model (empty = discover), API key as the
/// NAME of an environment variable (with "set"/"not set" shown live, and a refusal of anything
/// that looks like a key itself), runtime, quantization label, extra body (JSON object, merged
/// into every request), the four timeouts, or a built-in simulated profile instead of a URL.
/// Errors appear inline next to the field, and OK stays disabled until the entry is valid.
class EndpointEditor : public QDialog {
    Q_OBJECT
public:
    explicit EndpointEditor(const EndpointEntry& entry,
        const std::vector<std::pair<QString, QString>>& simulatedProfiles, QWidget* parent = nullptr);

    /// The edited entry (valid when the dialog was accepted).
    EndpointEntry entry() const;
    /// The current inline errors, field by field (empty when valid). For tests and for OK.
    QStringList errors() const;
};

} // namespace qs
