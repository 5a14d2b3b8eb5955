#pragma once
// Cuts a fuzz input into the pieces a socket might have delivered it in, so the targets can check
// that a parser gives the same answer however its bytes arrive. The input's first byte says how
// many cuts (0–15), the next bytes each how long a piece is (1–256); the rest is the payload. The
// payload and the cuts both come from the fuzzer, so it explores the boundaries it finds useful.

#include <QByteArrayView>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace qs::fuzz {

struct SplitInput {
    QByteArrayView payload;
    std::vector<QByteArrayView> pieces; ///< the payload, in order, cut where the header said
};

inline SplitInput splitInput(const std::uint8_t* data, std::size_t size)
{
    SplitInput in;
    if (size == 0)
        return in;
    std::size_t cuts = data[0] % 16;
    std::size_t pos = 1;
    std::vector<std::size_t> lengths;
    for (; cuts > 0 && pos < size; --cuts, ++pos)
        lengths.push_back(std::size_t(data[pos]) + 1);
    in.payload = QByteArrayView(reinterpret_cast<const char*>(data) + pos, qsizetype(size - pos));
    qsizetype at = 0;
    for (std::size_t length : lengths) {
        if (at >= in.payload.size())
            break;
        const qsizetype n = std::min<qsizetype>(qsizetype(length), in.payload.size() - at);
        in.pieces.push_back(in.payload.sliced(at, n));
        at += n;
    }
    if (at < in.payload.size())
        in.pieces.push_back(in.payload.sliced(at));
    return in;
}

} // namespace qs::fuzz
