// SPDX-License-Identifier: MIT
// The screen check in CI (issue #26): every view `quantscope screenshot` renders, at its default
// size, through the same code path, inspected for what a person would notice — text cut off, a
// column off to the right, a cell elided, a scrollbar in the image — so these do not come back.
// And the check itself, on widgets built to fail it.
#include "app/cli/CommandLine.h"
#include "app/common/DashboardViews.h"
#include "app/dashboard/ScreenshotStage.h"
#include "model/decide/Campaign.h"
#include "widgets/ScreenCheck.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QStyleFactory>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtTest>

using namespace qs;
using namespace qs::app;

namespace {

QString data(const char* path)
{
    return QStringLiteral(QS_TEST_DATA "/") + QString::fromLatin1(path);
}

/// The views whose content may scroll down in an exported image, and why: the rest may not.
const std::map<QString, QString>& scrollingAllowed()
{
    static const std::map<QString, QString> allowed {
        {QStringLiteral("window"), QStringLiteral("the Charts tab is a page of seven charts that scrolls")},
        {QStringLiteral("statistics"),
            QStringLiteral("a run has more rows than a screen (every test × endpoint)")},
        {QStringLiteral("decision"),
            QStringLiteral("a profile of twenty criteria is taller than one screen")},
        {QStringLiteral("answers"), QStringLiteral("a conversation is longer than its pane")},
        {QStringLiteral("responses"), QStringLiteral("a long answer is longer than its column")},
        {QStringLiteral("fidelity"), QStringLiteral("the per-prompt list outgrows the screen")},
    };
    return allowed;
}

QStringList problemsOf(QWidget* widget, const QString& view)
{
    QStringList out;
    for (const ScreenProblem& p : checkScreen(widget)) {
        if (p.kind == ScreenProblem::Kind::VerticalScrollBar && scrollingAllowed().count(view))
            continue;
        out << p.text();
    }
    return out;
}

} // namespace

class TestScreenCheck : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // As `quantscope screenshot` sets the application up: the same style, the same pixels.
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    void theCheckFindsWhatAPersonWould()
    {
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* cut = new QLabel(QStringLiteral("A warning much longer than the room it was given on screen"));
        cut->setObjectName(QStringLiteral("cut"));
        cut->setMinimumWidth(10);
        cut->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        auto* squeezed = new QLabel(QStringLiteral("What to do: a wrapped sentence that needs three lines at "
                                                   "this width, squeezed into the height of one of them."));
        squeezed->setObjectName(QStringLiteral("squeezed"));
        squeezed->setWordWrap(true);
        squeezed->setFixedHeight(squeezed->fontMetrics().height());
        auto* table = new QTableWidget(3, 4);
        table->setObjectName(QStringLiteral("wide"));
        table->setHorizontalHeaderLabels({QStringLiteral("Endpoint"), QStringLiteral("Test"),
            QStringLiteral("Measured"), QStringLiteral("Why")});
        table->setItem(0, 0, new QTableWidgetItem(QStringLiteral("an endpoint with a long name")));
        table->setItem(0, 3, new QTableWidgetItem(QStringLiteral("the reason, off to the right")));
        for (int c = 0; c < 4; ++c)
            table->setColumnWidth(c, 120);
        table->setColumnWidth(0, 60); // elides its cell
        layout->addWidget(cut);
        layout->addWidget(squeezed);
        layout->addWidget(table);
        window.resize(300, 300);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCoreApplication::processEvents();

        std::map<ScreenProblem::Kind, QStringList> found;
        for (const ScreenProblem& p : checkScreen(&window))
            found[p.kind] << p.text();
        QVERIFY2(found[ScreenProblem::Kind::ClippedText].join(u'\n').contains(QStringLiteral("cut")),
            qPrintable(found[ScreenProblem::Kind::ClippedText].join(u'\n')));
        QVERIFY(found[ScreenProblem::Kind::ClippedText].join(u'\n').contains(QStringLiteral("squeezed")));
        QVERIFY(found[ScreenProblem::Kind::ClippedText].join(u'\n').contains(QStringLiteral("needs")));
        QVERIFY2(found[ScreenProblem::Kind::ColumnOffScreen].join(u'\n').contains(QStringLiteral("\"Why\"")),
            qPrintable(found[ScreenProblem::Kind::ColumnOffScreen].join(u'\n')));
        QVERIFY(found[ScreenProblem::Kind::ElidedCell].join(u'\n').contains(QStringLiteral("an endpoint")));
        QVERIFY(!found[ScreenProblem::Kind::HorizontalScrollBar].isEmpty());

        // Given the room, the same widgets pass.
        cut->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
        squeezed->setMinimumHeight(0);
        squeezed->setMaximumHeight(QWIDGETSIZE_MAX);
        table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        window.resize(900, 400);
        QCoreApplication::processEvents();
        QCOMPARE(problemsOf(&window, QString()), QStringList());
    }

    void everyViewAtItsDefaultSize_data()
    {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<int>("theme");
        const QStringList one {data("results/voice-sim.json")};
        const QStringList two {data("campaign/attempt1.json"), data("campaign/attempt2.json")};
        for (const ViewInfo& v : dashboardViews()) {
            if (v.name == u"campaign") {
                QTest::newRow("campaign") << v.name << QStringList {data("campaign")} << int(Theme::Light);
                continue;
            }
            QTest::newRow(qPrintable(v.name + QStringLiteral(" voice-sim")))
                << v.name << one << int(Theme::Light);
            QTest::newRow(qPrintable(v.name + QStringLiteral(" two files, dark")))
                << v.name << two << int(Theme::Dark);
        }
    }

    void everyViewAtItsDefaultSize()
    {
        QFETCH(QString, view);
        QFETCH(QStringList, files);
        QFETCH(int, theme);
        const ViewInfo* info = findView(view);
        QVERIFY(info);
        std::unique_ptr<QWidget> widget;
        if (view == u"campaign") {
            std::vector<CampaignFile> loaded = loadCampaignFiles(files, nullptr);
            auto campaign = std::make_shared<const Campaign>(buildCampaign(
                std::move(loaded), loadDecisionProfile(data("campaign/profile.json")), QString()));
            widget = stageCampaign(campaign, Theme(theme), info->size);
        } else {
            const std::shared_ptr<const RunResult> result = loadResultsFor("screenshot", files);
            QVERIFY(result);
            DashboardData d = prepareDashboard(result, 0);
            d.sources = files;
            widget = stageView(*info, d, files, Theme(theme), info->size, true);
        }
        QVERIFY(widget);
        const QStringList problems = problemsOf(widget.get(), view);
        QVERIFY2(problems.isEmpty(), qPrintable(u'\n' + problems.join(u'\n')));
    }
};

QTEST_MAIN(TestScreenCheck)
#include "tst_screen_check.moc"
