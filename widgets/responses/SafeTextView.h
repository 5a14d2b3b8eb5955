// SPDX-License-Identifier: MIT
#pragma once

#include <QTextBrowser>

namespace qs {

/// A read-only view for untrusted text (model output). Never interprets HTML from the text,
/// never loads a resource (loadResource returns nothing for every URL, local files included),
/// never navigates itself: a clicked http(s) link is offered to the user (linkActivated) and only
/// opened after they confirm. Callers fill it through QTextDocument/QTextCursor with plain text
/// and formats, or with setMarkdown() — which this class always parses with MarkdownNoHTML.
class SafeTextView : public QTextBrowser {
    Q_OBJECT
public:
    explicit SafeTextView(QWidget* parent = nullptr);

    /// Renders `markdown` with raw HTML shown as literal text and no images loaded.
    void setUntrustedMarkdown(const QString& markdown);
    /// Shows `text` exactly, character for character.
    void setUntrustedPlainText(const QString& text);

    QVariant loadResource(int type, const QUrl& name) override;

    /// How many times a resource was asked for and refused (every time: nothing is ever loaded).
    int refusedResourceLoads() const { return m_refusedLoads; }

Q_SIGNALS:
    /// The user clicked a link in model output. Nothing has been opened.
    void linkActivated(const QUrl& url);

protected:
    /// Refuses every navigation (history, reload, a source set by anyone): the view only ever
    /// shows the document its owner wrote.
    void doSetSource(const QUrl& name, QTextDocument::ResourceType type) override;

private:
    int m_refusedLoads = 0;
};

} // namespace qs
