// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/panels/EndpointEntry.h"

#include <QDialog>
#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace qs {

/// Edits every field of an endpoint: label, base URL, model (empty = discover), API key as the
/// NAME of an environment variable (with "set"/"not set" shown live, and a refusal of anything
/// that looks like a key itself), runtime, quantization label, extra body (JSON object, merged
/// into every request), the extra metrics URLs scraped during a run (a DCGM or node exporter),
/// the four timeouts, or a built-in simulated profile instead of a URL; and whether it is the
/// fidelity reference.
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

protected:
    void changeEvent(QEvent* event) override;

private:
    void validate();
    void applyColors();
    QLabel* makeErrorLabel();

    EndpointEntry m_entry; ///< the original: keeps the id and anything not edited here
    QLineEdit* m_label;
    QComboBox* m_profile;
    QLabel* m_profileDescription;
    QLineEdit* m_url;
    QLabel* m_urlError;
    QLineEdit* m_model;
    QLineEdit* m_keyEnv;
    QLabel* m_keyStatus;
    QLabel* m_keyError;
    QComboBox* m_runtime;
    QLineEdit* m_quantization;
    QLineEdit* m_facts; ///< Endpoint::meta as "name=value, name=value"
    QLabel* m_factsError;
    QCheckBox* m_reference;
    QPlainTextEdit* m_extraBody;
    QLabel* m_bodyError;
    QPlainTextEdit* m_metricsUrls;
    QLabel* m_metricsError;
    QSpinBox* m_connectMs;
    QSpinBox* m_firstByteMs;
    QSpinBox* m_idleMs;
    QSpinBox* m_totalMs;
    QPushButton* m_ok;
    QStringList m_errors;
    bool m_keySet = false;
};

/// The extra metrics URLs as typed: one per line or separated by '|' (as in `metrics=` of an
/// endpoint SPEC), blanks ignored, each normalised by normalizeMetricsUrl, duplicates dropped.
/// On a bad one, `error` names it ("line 2: \"ftp://h\" is not …") and the list holds the good ones.
QStringList parseMetricsUrls(const QString& text, QString* error = nullptr);

/// An endpoint's facts (Endpoint::meta) as typed: "calibration=annie-500, method=awq_lite" —
/// name=value pairs separated by commas, blanks ignored, names and values trimmed. On a pair
/// without a name or an '=', `error` says so and the map holds the good ones.
std::map<QString, QString> parseFacts(const QString& text, QString* error = nullptr);
/// The facts as parseFacts() reads them, in name order.
QString factsText(const std::map<QString, QString>& facts);

/// True when `name` is usable as an environment variable name and does not look like a key
/// pasted by mistake ("sk-…", long random strings). Empty is valid (no key).
bool isPlausibleEnvVarName(const QString& name);

} // namespace qs
