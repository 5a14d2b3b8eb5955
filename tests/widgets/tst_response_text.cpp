// SPDX-License-Identifier: MIT
// An answer's text in the responses view: span highlighting from the gates' ranges, tool calls
// pretty-printed, and model output that tries to be HTML, images or links (SafeTextView never
// interprets or loads it; links open only after the user confirms).
#include "ResponsesTestSupport.h"
#include "WidgetTestSupport.h"
#include "widgets/responses/ResponseColumn.h"
#include "widgets/responses/ResponseFormatting.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/responses/SafeTextView.h"

#include <QDesktopServices>
#include <QImage>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

using namespace qs;
using namespace qs::test;

namespace {

const QString kHostile
    = QStringLiteral("<img src=\"file:///etc/passwd\"> <b>bold</b> <script>alert(1)</script>\n\n"
                     "See [link](http://example.com) and ![x](/tmp/x.png) and [local](file:///etc/passwd).");

/// Document position of the first fragment whose format satisfies `pred`, or -1.
template <typename Pred> int findFragment(const QTextDocument* doc, Pred pred)
{
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            if (it.fragment().isValid() && pred(it.fragment().charFormat()))
                return it.fragment().position();
    return -1;
}

int imageCount(const QTextDocument* doc)
{
    int n = 0;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            n += it.fragment().charFormat().isImageFormat() ? 1 : 0;
    return n;
}

void clickAt(SafeTextView* view, int position)
{
    QTextCursor c(view->document());
    c.setPosition(position);
    const QRect r = view->cursorRect(c);
    const QPoint p(r.x() + 4, r.center().y());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, p);
}

/// The fixture with one record's content replaced (its gates cleared: they judged other text).
DashboardData withContent(int recordIndex, const QString& content)
{
    auto r = std::make_shared<RunResult>(*test::loadFixture());
    RunRecord& rec = r->records[std::size_t(recordIndex)];
    rec.request.response.content = content;
    rec.request.metrics.visibleContentOffset = 0;
    rec.gateDetails = nlohmann::json::object();
    DashboardData d;
    d.result = r;
    return d;
}

class UrlRecorder : public QObject {
    Q_OBJECT
public:
    QList<QUrl> opened;
public Q_SLOTS:
    void open(const QUrl& url) { opened << url; }
};

} // namespace

class TestResponseText : public QObject {
    Q_OBJECT
private:
    DashboardData m_data;

private Q_SLOTS:
    void initTestCase() { setUpResponsesTest(m_data); }

    // --- ResponseFormatting -------------------------------------------------------------------

    void highlightsComeFromGateDetails()
    {
        // nvfp4-like, factual, run 1: a leaked <think> block, four bullets, "Tokyo" found.
        const RunRecord* rec = findRecord(*m_data.result, 1, QStringLiteral("factual"), 1, 1);
        QVERIFY(rec);
        const QString& content = rec->request.response.content;
        const auto hl = gateHighlights(rec->gateDetails, QStringLiteral("content"), int(content.size()));
        int thinking = 0, markdown = 0, answer = 0;
        for (const Highlight& h : hl) {
            thinking += h.kind == SpanKind::Thinking;
            markdown += h.kind == SpanKind::Markdown;
            answer += h.kind == SpanKind::Answer;
            if (h.kind == SpanKind::Thinking)
                QVERIFY(content.mid(h.begin, h.end - h.begin).startsWith(u"<think>"));
            if (h.kind == SpanKind::Markdown)
                QCOMPARE(content.mid(h.begin, 2), QStringLiteral("- "));
            if (h.kind == SpanKind::Answer)
                QCOMPARE(content.mid(h.begin, h.end - h.begin), QStringLiteral("Tokyo"));
        }
        QCOMPARE(thinking, 1);
        QCOMPARE(markdown, 4);
        QCOMPARE(answer, 1);
        // within_length points at sentences: not highlighted.
        QCOMPARE(int(hl.size()), 6);
        QVERIFY(gateHighlights(rec->gateDetails, QStringLiteral("reasoning"), 0).empty());
    }

    void malformedRangesAreClippedOrDropped()
    {
        using J = nlohmann::json;
        auto range = [](J field, J begin, J end) {
            return J {{"field", field}, {"begin", begin}, {"end", end}};
        };
        J bold = range("content", 5, 500);
        bold["what"] = "bold";
        const J details {{"no_markdown",
                             {{"ranges",
                                 J::array({bold, range("content", 9, 3), range("content", "x", 3),
                                     range("reasoning", 0, 2)})}}},
            {"within_length", {{"ranges", J::array({range("content", 0, 4)})}}},
            {"unknown", {{"ranges", J::array({range("content", 0, 4)})}}}, {"coherent", "not an object"}};
        const auto hl = gateHighlights(details, QStringLiteral("content"), 20);
        QCOMPARE(int(hl.size()), 1);
        QCOMPARE(hl[0].begin, 5);
        QCOMPARE(hl[0].end, 20);
        QCOMPARE(hl[0].what, QStringLiteral("bold"));
        QVERIFY(gateHighlights(nlohmann::json(), QStringLiteral("content"), 20).empty());
    }

    void overlappingSpansShowTheShorterOne()
    {
        const QString text = QStringLiteral("xx **Tokyo** yy");
        const std::vector<Highlight> hl {{3, 12, SpanKind::Markdown, QStringLiteral("bold")},
            {5, 10, SpanKind::Answer, QStringLiteral("Tokyo")}, {0, 2, SpanKind::Markdown, QString()},
            {0, 2, SpanKind::Thinking, QString()}};
        QTextDocument doc;
        QTextCursor c(&doc);
        insertHighlighted(c, text, 0, int(text.size()), hl, Theme::Light, QTextCharFormat());
        QCOMPARE(doc.toPlainText(), text);
        const ThemeColors& t = themeColors(Theme::Light);
        QCOMPARE(backgroundAt(&doc, 0), t.thinkingSpan); // equal length: the later kind
        QCOMPARE(backgroundAt(&doc, 2), QColor());
        QCOMPARE(backgroundAt(&doc, 3), t.markdownSpan);
        QCOMPARE(backgroundAt(&doc, 5), t.answerSpan);
        QCOMPARE(backgroundAt(&doc, 9), t.answerSpan);
        QCOMPARE(backgroundAt(&doc, 10), t.markdownSpan);
        QCOMPARE(backgroundAt(&doc, 12), QColor());
        QTextCursor at(&doc);
        at.setPosition(6);
        QVERIFY(at.charFormat().toolTip().contains(u"expected_answer: Tokyo"));

        // A slice: positions shift, highlights are clipped to it.
        QTextDocument part;
        QTextCursor pc(&part);
        insertHighlighted(pc, text, 7, int(text.size()), hl, Theme::Dark, QTextCharFormat());
        QCOMPARE(part.toPlainText(), QStringLiteral("kyo** yy"));
        QCOMPARE(backgroundAt(&part, 0), themeColors(Theme::Dark).answerSpan);
        QCOMPARE(backgroundAt(&part, 3), themeColors(Theme::Dark).markdownSpan);
    }

    void toolArgumentsArePrettyPrinted()
    {
        const auto pretty = prettyJson(QStringLiteral("{\"zeta\":1,\"alpha\":{\"b\":[1,2]}}"));
        QVERIFY(pretty);
        QVERIFY(pretty->startsWith(u"{\n  \"zeta\": 1,\n  \"alpha\""));
        QVERIFY(!prettyJson(QStringLiteral("{\"query\": \"cut off")));

        QTextDocument doc;
        std::vector<ToolCall> calls(2);
        calls[0].name = QStringLiteral("web_search");
        calls[0].arguments = QStringLiteral("{\"query\":\"rain in Lisbon\"}");
        calls[1].name = QStringLiteral("read_notes");
        calls[1].arguments = QStringLiteral("{\"list\": <b>x</b>");
        appendToolCalls(&doc, calls, Theme::Light);
        const QString text = doc.toPlainText();
        QVERIFY(text.contains(u"web_search({\n  \"query\": \"rain in Lisbon\"\n})"));
        QVERIFY(text.contains(u"read_notes({\"list\": <b>x</b>)"));
        QVERIFY(text.contains(u"not valid JSON"));
        const int name = text.indexOf(u"web_search");
        QTextCursor c(&doc);
        c.setPosition(name + 1);
        QVERIFY(c.charFormat().fontFixedPitch());
        QVERIFY(c.charFormat().fontWeight() >= QFont::Bold);
    }

    // --- Untrusted output ---------------------------------------------------------------------

    void safeTextViewNeverInterpretsOrLoads()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("x.png"));
        QImage red(8, 8, QImage::Format_RGB32);
        red.fill(Qt::red);
        QVERIFY(red.save(png));
        const QString markdown = kHostile + QStringLiteral("\n\n![real](") + png + QStringLiteral(")");

        SafeTextView view;
        view.resize(500, 300);
        view.show();
        view.setUntrustedPlainText(markdown);
        QCoreApplication::processEvents();
        QCOMPARE(view.document()->toPlainText(), markdown);
        QCOMPARE(imageCount(view.document()), 0);
        QCOMPARE(findFragment(view.document(), [](const QTextCharFormat& f) { return f.isAnchor(); }), -1);

        view.setUntrustedMarkdown(markdown);
        view.grab(); // lays out and paints: an image would be fetched now
        const QString text = view.document()->toPlainText();
        QVERIFY2(text.contains(u"<img src=\"file:///etc/passwd\">"), qPrintable(text));
        QVERIFY(text.contains(u"<b>bold</b>"));
        QVERIFY(text.contains(u"<script>alert(1)</script>"));
        QCOMPARE(imageCount(view.document()), 0);
        QVERIFY(text.contains(u"[image “x” not loaded: /tmp/x.png]"));
        QVERIFY(text.contains(u"not loaded: " + png));
        QVERIFY(!view.document()->resource(QTextDocument::ImageResource, QUrl::fromLocalFile(png)).isValid());
        QVERIFY(!view.document()->resource(QTextDocument::ImageResource, QUrl(png)).isValid());
        QCOMPARE(
            findFragment(view.document(), [](const QTextCharFormat& f) { return f.isImageFormat(); }), -1);

        // Every resource request ends in the view's refusal: local files included.
        const int before = view.refusedResourceLoads();
        QVERIFY(!view.document()
                     ->resource(QTextDocument::ImageResource, QUrl(QStringLiteral("file:///etc/passwd")))
                     .isValid());
        QVERIFY(!view.document()
                     ->resource(QTextDocument::StyleSheetResource, QUrl::fromLocalFile(png))
                     .isValid());
        QCOMPARE(view.refusedResourceLoads(), before + 2);
        QVERIFY(!view.loadResource(QTextDocument::HtmlResource, QUrl(QStringLiteral("http://example.com")))
                     .isValid());

        // A click on a link says so and navigates nowhere.
        QSignalSpy clicked(&view, &SafeTextView::linkActivated);
        const int anchor = findFragment(view.document(),
            [](const QTextCharFormat& f) { return f.isAnchor() && f.anchorHref() == u"http://example.com"; });
        QVERIFY(anchor >= 0);
        clickAt(&view, anchor);
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.at(0).at(0).toUrl(), QUrl(QStringLiteral("http://example.com")));
        QVERIFY(view.source().isEmpty());
        QCOMPARE(view.document()->toPlainText(), text);
        view.setSource(QUrl(QStringLiteral("http://example.com"))); // even when asked to
        QCOMPARE(view.document()->toPlainText(), text);
    }

    void hostileOutputInTheView()
    {
        const int idx = findIndex(*m_data.result, 1, QStringLiteral("factual"), 1, 3);
        ResponsesView view;
        view.resize(900, 560);
        view.show();
        view.setData(withContent(idx, kHostile));
        QVERIFY(view.select(QStringLiteral("factual"), 1, 3));
        SafeTextView* answer = view.column(1)->answerView();
        QCOMPARE(answer->document()->toPlainText(), kHostile); // raw: every character as sent
        QCOMPARE(imageCount(answer->document()), 0);

        view.setRendered(true);
        QCoreApplication::processEvents();
        const QString text = answer->document()->toPlainText();
        QVERIFY(text.contains(u"<b>bold</b>"));
        QVERIFY(text.contains(u"<img src=\"file:///etc/passwd\">"));
        QCOMPARE(imageCount(answer->document()), 0);
        QCOMPARE(answer->refusedResourceLoads(), 0); // nothing was even asked for
        shoot(view, QStringLiteral("responses-hostile-rendered"));
        view.setTheme(Theme::Light);
        view.resize(900, 560);
        QCoreApplication::processEvents();

        // Links: only after the user confirms, only http(s).
        UrlRecorder recorder;
        QDesktopServices::setUrlHandler(QStringLiteral("http"), &recorder, "open");
        QDesktopServices::setUrlHandler(QStringLiteral("https"), &recorder, "open");
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &recorder, "open");
        const auto cleanup = qScopeGuard([] {
            QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
            QDesktopServices::unsetUrlHandler(QStringLiteral("https"));
            QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
        });
        auto anchorFor = [answer](const QString& href) {
            return findFragment(answer->document(),
                [&href](const QTextCharFormat& f) { return f.isAnchor() && f.anchorHref() == href; });
        };
        auto dialog = [&view]() {
            QCoreApplication::processEvents();
            const auto boxes = view.findChildren<QMessageBox*>();
            return boxes.isEmpty() ? nullptr : boxes.last();
        };
        const int web = anchorFor(QStringLiteral("http://example.com"));
        QVERIFY(web >= 0);
        view.setTheme(Theme::Dark); // links in the theme's link colour, not the application's
        QTextCursor link(answer->document());
        link.setPosition(anchorFor(QStringLiteral("http://example.com")) + 1);
        QCOMPARE(link.charFormat().foreground().color(), themePalette(Theme::Dark).color(QPalette::Link));
        view.setTheme(Theme::Light);

        clickAt(answer, web);
        QMessageBox* box = dialog();
        QVERIFY(box);
        QVERIFY(box->text().contains(u"http://example.com"));
        QCOMPARE(box->textFormat(), Qt::PlainText);
        QVERIFY(recorder.opened.isEmpty());
        box->button(QMessageBox::Cancel)->click();
        QCoreApplication::processEvents();
        QVERIFY(recorder.opened.isEmpty());

        clickAt(answer, web);
        box = dialog();
        QVERIFY(box);
        QPushButton* open = nullptr;
        for (QAbstractButton* b : box->buttons())
            if (b->text() == u"Open")
                open = qobject_cast<QPushButton*>(b);
        QVERIFY(open);
        open->click();
        QCoreApplication::processEvents();
        QCOMPARE(recorder.opened, QList<QUrl> {QUrl(QStringLiteral("http://example.com"))});

        const int local = anchorFor(QStringLiteral("file:///etc/passwd"));
        QVERIFY(local >= 0);
        clickAt(answer, local);
        box = dialog();
        QVERIFY(box);
        QVERIFY(box->text().contains(u"Only http and https"));
        QCOMPARE(box->buttons().size(), 1);
        box->buttons().first()->click();
        QCoreApplication::processEvents();
        QCOMPARE(recorder.opened.size(), 1);
        QVERIFY(answer->source().isEmpty());
        QCOMPARE(answer->document()->toPlainText(), text);
    }
};

QTEST_MAIN(TestResponseText)
#include "tst_response_text.moc"
