// SPDX-License-Identifier: MIT
#include "model/wire/ArrivalStamps.h"

#include "model/core/Clock.h"

#if defined(Q_OS_LINUX)
#include <cstring>
#include <ctime>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

namespace qs::arrival_stamps {

#if defined(Q_OS_LINUX)

void prepare()
{
    // One socket that asks for stamps and is never closed keeps the kernel's stamping on, so a
    // connection made later finds it already running.
    static const bool prepared = [] {
        const int keeper = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        const int on = 1;
        return keeper >= 0 && ::setsockopt(keeper, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
    }();
    (void)prepared;
}

bool enable(qintptr socket)
{
    prepare();
    const int on = 1;
    return ::setsockopt(int(socket), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
}

qint64 pendingArrivalNs(qintptr socket, char* scratch, qint64 size, qint64 notBeforeNs)
{
    if (size <= 0)
        return 0;
    // The kernel reports the stamp of the last packet a receive copied: peek everything waiting,
    // so the stamp is when the last of it arrived (the moment the read could first have seen it all).
    iovec iov {scratch, std::size_t(size)};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec)) * 2];
    msghdr message {};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    if (::recvmsg(int(socket), &message, MSG_PEEK | MSG_DONTWAIT) <= 0)
        return 0;
    for (cmsghdr* h = CMSG_FIRSTHDR(&message); h; h = CMSG_NXTHDR(&message, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_TIMESTAMPNS)
            continue;
        timespec arrived {};
        std::memcpy(&arrived, CMSG_DATA(h), sizeof arrived);
        // The stamp is wall-clock time (CLOCK_REALTIME); move it onto the monotonic clock every
        // other stamp uses, with the two clocks' offset as of now (a step of the wall clock
        // between arrival and now would show as an implausible stamp, refused below).
        timespec wall {};
        ::clock_gettime(CLOCK_REALTIME, &wall);
        const qint64 now = monotonicNs();
        const qint64 wallNs = qint64(wall.tv_sec) * 1000000000 + wall.tv_nsec;
        const qint64 arrivedNs = qint64(arrived.tv_sec) * 1000000000 + arrived.tv_nsec - (wallNs - now);
        if (arrivedNs > now || arrivedNs < notBeforeNs)
            return 0;
        return arrivedNs;
    }
    return 0;
}

#else

void prepare() { }

bool enable(qintptr)
{
    return false;
}

qint64 pendingArrivalNs(qintptr, char*, qint64, qint64)
{
    return 0;
}

#endif

} // namespace qs::arrival_stamps
