// SPDX-License-Identifier: MIT
#include "widgets/responses/SafeTextView.h"

#include <QPointer>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocumentFragment>
#include <QTextImageFormat>

namespace qs {

namespace {

/// QTextDocument::loadResource falls back to reading local files itself when the view returns
/// nothing, and a document resource provider could fetch anything: this document asks only the
/// view, and has a provider that refuses, so no URL in model output ever reaches the disk.
class SafeTextDocument : public QTextDocument {
public:
    explicit SafeTextDocument(SafeTextView* view, QObject* parent)
        : QTextDocument(parent)
        , m_view(view)
    {
        setResourceProvider([](const QUrl&) { return QVariant(); });
        setUndoRedoEnabled(false);
    }

protected:
    QVariant loadResource(int type, const QUrl& name) override
    {
        return m_view ? m_view->loadResource(type, name) : QVariant();
    }

private:
    QPointer<SafeTextView> m_view;
};

/// Replaces every image of a freshly parsed document with a visible note, before any layout
/// could ask for it: Qt's image handler tries to load an image file by name when no resource
/// gives it, which would read a path chosen by the model.
void replaceImages(QTextDocument& doc)
{
    struct Image {
        int position;
        QString name;
        QString alt;
    };
    std::vector<Image> images;
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (fragment.isValid() && fragment.charFormat().isImageFormat()) {
                const QTextImageFormat image = fragment.charFormat().toImageFormat();
                // An image fragment is one object-replacement character per image.
                for (int i = 0; i < fragment.length(); ++i)
                    images.push_back({fragment.position() + i, image.name(),
                        image.property(QTextFormat::ImageAltText).toString()});
            }
        }
    // Back to front, so earlier positions stay valid.
    for (auto it = images.rbegin(); it != images.rend(); ++it) {
        QTextCursor cursor(&doc);
        cursor.setPosition(it->position);
        cursor.setPosition(it->position + 1, QTextCursor::KeepAnchor);
        QTextCharFormat note;
        note.setFontItalic(true);
        const QString alt = it->alt.isEmpty() ? QString() : QStringLiteral(" “%1”").arg(it->alt);
        cursor.insertText(QStringLiteral("[image%1 not loaded: %2]").arg(alt, it->name), note);
    }
}

/// Links in the view's link colour: the markdown parser takes the application's, which may be
/// another theme's (blue on a dark background).
void recolourLinks(QTextDocument& doc, const QColor& link)
{
    std::vector<std::pair<int, int>> anchors;
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it)
            if (it.fragment().isValid() && it.fragment().charFormat().isAnchor())
                anchors.emplace_back(it.fragment().position(), it.fragment().length());
    QTextCharFormat colour;
    colour.setForeground(link);
    for (const auto& [position, length] : anchors) {
        QTextCursor cursor(&doc);
        cursor.setPosition(position);
        cursor.setPosition(position + length, QTextCursor::KeepAnchor);
        cursor.mergeCharFormat(colour);
    }
}

} // namespace

SafeTextView::SafeTextView(QWidget* parent)
    : QTextBrowser(parent)
{
    setDocument(new SafeTextDocument(this, this));
    setOpenLinks(false);
    setOpenExternalLinks(false);
    setReadOnly(true);
    setUndoRedoEnabled(false);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard
        | Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(this, &QTextBrowser::anchorClicked, this, &SafeTextView::linkActivated);
}

void SafeTextView::setUntrustedMarkdown(const QString& markdown)
{
    // Parsed into a document no view lays out, cleaned of images, then copied in.
    SafeTextDocument parsed(this, nullptr);
    parsed.setDefaultFont(font());
    parsed.setMarkdown(markdown,
        QTextDocument::MarkdownFeatures(
            QTextDocument::MarkdownDialectGitHub | QTextDocument::MarkdownNoHTML));
    replaceImages(parsed);
    recolourLinks(parsed, palette().color(QPalette::Link));
    document()->clear();
    QTextCursor(document()).insertFragment(QTextDocumentFragment(&parsed));
}

void SafeTextView::setUntrustedPlainText(const QString& text)
{
    document()->clear();
    QTextCursor(document()).insertText(text, QTextCharFormat());
    // New text is read from its beginning: the view's cursor would otherwise follow the insertion
    // and open it scrolled to the end.
    moveCursor(QTextCursor::Start);
    verticalScrollBar()->setValue(0);
}

QVariant SafeTextView::loadResource(int type, const QUrl& name)
{
    Q_UNUSED(type)
    Q_UNUSED(name)
    ++m_refusedLoads;
    return {};
}

void SafeTextView::doSetSource(const QUrl& name, QTextDocument::ResourceType type)
{
    Q_UNUSED(name)
    Q_UNUSED(type)
}

} // namespace qs
