// SPDX-License-Identifier: MIT
#include "tests/bench/CurlPass.h"

#include "model/core/Clock.h"

#include <QDir>
#include <QFile>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace qs::bench {

namespace {

// A quoted string in curl's config syntax: backslash and double quote escaped.
QByteArray quoted(const QByteArray& text)
{
    QByteArray out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + '"';
}

double ms(const timeval& t)
{
    return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3;
}

} // namespace

CurlPass runCurl(const QUrl& url, const QByteArray& body, int requests, int parallel, const QString& workDir)
{
    CurlPass pass;
    const QString configPath = QDir(workDir).filePath(QStringLiteral("curl.config"));
    const QString reportPath = QDir(workDir).filePath(QStringLiteral("curl.report"));
    QByteArray config;
    // Options after `next` start afresh, so each transfer lists its own (no-buffer included).
    const QByteArray one = "url = " + quoted(url.toEncoded())
        + "\nheader = \"Content-Type: application/json\"\n"
        + "header = \"Accept: text/event-stream\"\ndata-binary = " + quoted(body) + "\nno-buffer\n"
        + "output = \"/dev/null\"\nwrite-out = \"%{http_code} %{size_download}\\n\"\n";
    for (int i = 0; i < requests; ++i)
        config += (i ? "next\n" : "") + one;
    QFile file(configPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(config) != config.size()) {
        pass.error = QStringLiteral("cannot write %1").arg(configPath);
        return pass;
    }
    file.close();

    const QByteArray configArg = configPath.toLocal8Bit();
    const QByteArray reportArg = reportPath.toLocal8Bit();
    const QByteArray parallelArg = QByteArray::number(parallel);
    const QByteArray errorsArg = QDir(workDir).filePath(QStringLiteral("curl.errors")).toLocal8Bit();
    std::vector<const char*> argv
        = {"curl", "-sS", "--no-progress-meter", "--parallel", "--parallel-immediate", "--parallel-max",
            parallelArg.constData(), "-K", configArg.constData(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, reportArg.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, errorsArg.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const qint64 startNs = monotonicNs();
    const int spawned
        = posix_spawnp(&pid, "curl", &actions, nullptr, const_cast<char* const*>(argv.data()), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        pass.error = QStringLiteral("cannot run curl: %1").arg(QString::fromLocal8Bit(strerror(spawned)));
        return pass;
    }
    int status = 0;
    rusage usage {};
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) { }
    pass.wallMs = msBetween(startNs, monotonicNs());
    pass.cpuMs = ms(usage.ru_utime) + ms(usage.ru_stime);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        QFile errors(QString::fromLocal8Bit(errorsArg));
        const QByteArray said = errors.open(QIODevice::ReadOnly) ? errors.read(400).trimmed() : QByteArray();
        pass.error = QStringLiteral("curl ended with status %1: %2")
                         .arg(WIFEXITED(status) ? WEXITSTATUS(status) : -1)
                         .arg(QString::fromLocal8Bit(said));
    }

    QFile report(reportPath);
    if (report.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : report.readAll().split('\n')) {
            const QList<QByteArray> fields = line.trimmed().split(' ');
            if (fields.size() != 2)
                continue;
            ++pass.transfers;
            pass.ok += fields[0] == "200" ? 1 : 0;
            pass.bytes += fields[1].toLongLong();
        }
    }
    return pass;
}

} // namespace qs::bench
