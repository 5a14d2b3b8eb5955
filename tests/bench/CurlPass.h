// SPDX-License-Identifier: MIT
#pragma once

// curl on the same streams as the client (bench_streaming --curl): one curl process runs every
// transfer, `parallel` at once (--parallel, connections kept alive), each a POST of the same body
// written out unbuffered (-N, as one reads a stream) to /dev/null. Its CPU is the whole process's,
// user + system, from wait4() — startup included (a few ms, under 0.2 µs per token at the sizes
// the benchmark uses).

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace qs::bench {

struct CurlPass {
    QString error; ///< non-empty: curl could not run (not installed, killed…)
    double cpuMs = 0; ///< user + system time of the curl process
    double wallMs = 0;
    int transfers = 0; ///< transfers curl reported (its --write-out line)
    int ok = 0; ///< of which HTTP 200
    qint64 bytes = 0; ///< body bytes downloaded, all transfers
};

/// Runs `requests` POSTs of `body` to `url`, `parallel` at once; `workDir` holds curl's config
/// and its report.
CurlPass runCurl(const QUrl& url, const QByteArray& body, int requests, int parallel, const QString& workDir);

} // namespace qs::bench
