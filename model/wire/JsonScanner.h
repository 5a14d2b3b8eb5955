// SPDX-License-Identifier: MIT
#pragma once

// Internal to qs_wire: the scanner behind decodeChunk's fast path (StreamChunkFast.h).

#include <QByteArrayView>
#include <QString>
#include <charconv>
#include <cstring>
#include <optional>

namespace qs::detail {

constexpr int kMaxDepth = 64;
constexpr int kMaxIntDigits = 18; ///< any 18 digits fit a qint64: no overflow to think about
/// A number without an exponent and with at most this many integer digits is finite as a double,
/// so nlohmann accepts it; longer ones (and exponents that overflow) it rejects.
constexpr int kMaxFiniteDigits = 300;

/// A string member as it stands in the payload: the bytes between its quotes, not yet decoded.
struct RawString {
    const char* data = nullptr;
    qsizetype size = 0;
    bool escaped = false; ///< holds a backslash escape: unescape before use
    bool present = false; ///< the member was a string (anything else reads as empty)
    bool empty() const { return !present || size == 0; } ///< an escape never decodes to nothing
};

/// A number token: its grammar checked, and its value where the caller may need it.
struct Number {
    const char* begin = nullptr;
    const char* end = nullptr;
    bool integer = true; ///< no fraction, no exponent
    int digits = 0; ///< of the integer part
    qint64 intValue = 0; ///< integer with at most kMaxIntDigits digits
};

inline bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

inline int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/// A validating scanner over one JSON text that accepts exactly what nlohmann's strict parser
/// accepts (RFC 8259; its whitespace, escapes, UTF-8 and number rules, finite numbers only) and
/// reads values without building a document. Anything it cannot vouch for — invalid JSON, but
/// also what its reader does not handle (stop() from a callback), nesting past 64 levels, numbers
/// it would have to round — stops it, and the caller falls back to the document.
class JsonScanner {
public:
    explicit JsonScanner(QByteArrayView in)
        : m_p(in.data())
        , m_end(in.data() + in.size())
    {
    }

    bool stop()
    {
        m_stopped = true;
        return false;
    }
    bool stopped() const { return m_stopped; }
    char peek()
    {
        skipWhitespace();
        return m_p < m_end ? *m_p : '\0';
    }
    bool atEnd()
    {
        skipWhitespace();
        return m_p == m_end;
    }

    /// At '{': calls onMember(key) with the scanner at each member's value, which it must consume.
    template <typename OnMember> bool object(OnMember&& onMember)
    {
        if (++m_depth > kMaxDepth)
            return stop();
        ++m_p;
        if (peek() == '}') {
            ++m_p;
            --m_depth;
            return true;
        }
        for (;;) {
            if (peek() != '"')
                return stop();
            RawString key;
            if (!string(key))
                return false;
            if (key.escaped) // it may spell a key this path reads
                return stop();
            if (peek() != ':')
                return stop();
            ++m_p;
            skipWhitespace();
            if (!onMember(QByteArrayView(key.data, key.size)))
                return stop();
            const char c = peek();
            if (c == '}') {
                ++m_p;
                --m_depth;
                return true;
            }
            if (c != ',')
                return stop();
            ++m_p;
        }
    }

    /// At '[': calls onElement() with the scanner at each element, which it must consume.
    template <typename OnElement> bool array(OnElement&& onElement)
    {
        if (++m_depth > kMaxDepth)
            return stop();
        ++m_p;
        if (peek() == ']') {
            ++m_p;
            --m_depth;
            return true;
        }
        for (;;) {
            skipWhitespace();
            if (!onElement())
                return stop();
            const char c = peek();
            if (c == ']') {
                ++m_p;
                --m_depth;
                return true;
            }
            if (c != ',')
                return stop();
            ++m_p;
        }
    }

    bool skipValue()
    {
        switch (peek()) {
        case '{':
            return object([this](QByteArrayView) { return skipValue(); });
        case '[':
            return array([this] { return skipValue(); });
        case '"': {
            RawString ignored;
            return string(ignored);
        }
        case 't':
            return literal("true", 4);
        case 'f':
            return literal("false", 5);
        case 'n':
            return literal("null", 4);
        default: {
            Number ignored;
            return number(ignored);
        }
        }
    }

    /// A string member: read when it is one, validated and read as empty otherwise.
    bool stringValue(RawString& out)
    {
        out = RawString();
        return peek() == '"' ? string(out) : skipValue();
    }

    /// As StreamChunk.cpp's toInt() reads a member: integers; non-numbers are nothing. Fractions
    /// (whole ones count there) and integers of more than 18 digits stop this path.
    bool intValue(std::optional<qint64>& out)
    {
        out.reset();
        const char c = peek();
        if (c != '-' && !isDigit(c))
            return skipValue();
        Number n;
        if (!number(n))
            return false;
        if (!n.integer || n.digits > kMaxIntDigits)
            return stop();
        out = n.intValue;
        return true;
    }

    /// As a member read with get<double>(): any finite number; non-numbers are nothing.
    bool doubleValue(std::optional<double>& out)
    {
        out.reset();
        const char c = peek();
        if (c != '-' && !isDigit(c))
            return skipValue();
        Number n;
        if (!number(n))
            return false;
        if (n.integer) {
            if (n.digits > kMaxIntDigits)
                return stop();
            out = double(n.intValue);
            return true;
        }
        // Correctly rounded, as glibc's strtod that nlohmann calls: the same double.
        double value = 0;
        const auto [end, error] = std::from_chars(n.begin, n.end, value);
        if (error != std::errc() || end != n.end)
            return stop();
        out = value;
        return true;
    }

private:
    void skipWhitespace()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }

    bool literal(const char* word, qsizetype size)
    {
        if (m_end - m_p < size || std::memcmp(m_p, word, size_t(size)) != 0)
            return stop();
        m_p += size;
        return true;
    }

    /// nlohmann's lexer: '-'? ('0' | [1-9][0-9]*) ('.' [0-9]+)? ([eE] [+-]? [0-9]+)?, and the
    /// value must be finite.
    bool number(Number& n)
    {
        const char* p = m_p;
        n.begin = p;
        bool negative = false;
        if (p < m_end && *p == '-') {
            negative = true;
            ++p;
        }
        if (p >= m_end || !isDigit(*p))
            return stop();
        if (*p == '0') {
            ++p;
            n.digits = 1;
        } else {
            while (p < m_end && isDigit(*p)) {
                if (n.digits < kMaxIntDigits)
                    n.intValue = n.intValue * 10 + (*p - '0');
                ++n.digits;
                ++p;
            }
        }
        if (negative)
            n.intValue = -n.intValue;
        bool exponent = false;
        if (p < m_end && *p == '.') {
            n.integer = false;
            ++p;
            if (p >= m_end || !isDigit(*p))
                return stop();
            while (p < m_end && isDigit(*p))
                ++p;
        }
        if (p < m_end && (*p == 'e' || *p == 'E')) {
            n.integer = false;
            exponent = true;
            ++p;
            if (p < m_end && (*p == '+' || *p == '-'))
                ++p;
            if (p >= m_end || !isDigit(*p))
                return stop();
            while (p < m_end && isDigit(*p))
                ++p;
        }
        n.end = p;
        m_p = p;
        if (exponent) {
            // Overflow is an error to nlohmann, underflow is not: both stop here.
            double value = 0;
            const auto [end, error] = std::from_chars(n.begin, n.end, value);
            return error == std::errc() && end == n.end ? true : stop();
        }
        return n.digits <= kMaxFiniteDigits ? true : stop();
    }

    /// At '"'. nlohmann's rules: no control characters, the eight escapes and \uXXXX (a high
    /// surrogate only with a low one after it, never a low one alone), well-formed UTF-8.
    bool string(RawString& out)
    {
        const char* p = ++m_p;
        bool escaped = false;
        while (p < m_end) {
            const uchar c = uchar(*p);
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                ++p;
                continue;
            }
            if (c == '"') {
                out = RawString {m_p, p - m_p, escaped, true};
                m_p = p + 1;
                return true;
            }
            if (c == '\\') {
                escaped = true;
                if (++p >= m_end)
                    return stop();
                switch (*p) {
                case '"':
                case '\\':
                case '/':
                case 'b':
                case 'f':
                case 'n':
                case 'r':
                case 't':
                    ++p;
                    continue;
                case 'u': {
                    const int unit = hex4(++p);
                    if (unit < 0)
                        return stop();
                    p += 4;
                    if (unit >= 0xDC00 && unit <= 0xDFFF)
                        return stop();
                    if (unit >= 0xD800 && unit <= 0xDBFF) {
                        if (m_end - p < 2 || p[0] != '\\' || p[1] != 'u')
                            return stop();
                        const int low = hex4(p + 2);
                        if (low < 0xDC00 || low > 0xDFFF)
                            return stop();
                        p += 6;
                    }
                    continue;
                }
                default:
                    return stop();
                }
            }
            if (c < 0x20)
                return stop();
            const int length = utf8Length(p);
            if (length == 0)
                return stop();
            p += length;
        }
        return stop();
    }

    int hex4(const char* p) const
    {
        if (m_end - p < 4)
            return -1;
        int value = 0;
        for (int i = 0; i < 4; ++i) {
            const int digit = hexValue(p[i]);
            if (digit < 0)
                return -1;
            value = value << 4 | digit;
        }
        return value;
    }

    /// Bytes of the well-formed UTF-8 sequence at `p` (lead byte >= 0x80), 0 when ill-formed.
    int utf8Length(const char* p) const
    {
        const uchar c = uchar(*p);
        int continuation = 0;
        uchar low = 0x80, high = 0xBF; // range of the first continuation byte
        if (c >= 0xC2 && c <= 0xDF)
            continuation = 1;
        else if (c == 0xE0)
            continuation = 2, low = 0xA0;
        else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
            continuation = 2;
        else if (c == 0xED)
            continuation = 2, high = 0x9F;
        else if (c == 0xF0)
            continuation = 3, low = 0x90;
        else if (c >= 0xF1 && c <= 0xF3)
            continuation = 3;
        else if (c == 0xF4)
            continuation = 3, high = 0x8F;
        else
            return 0;
        if (m_end - p <= continuation)
            return 0;
        if (uchar(p[1]) < low || uchar(p[1]) > high)
            return 0;
        for (int i = 2; i <= continuation; ++i)
            if (uchar(p[i]) < 0x80 || uchar(p[i]) > 0xBF)
                return 0;
        return continuation + 1;
    }

    const char* m_p;
    const char* const m_end;
    int m_depth = 0;
    bool m_stopped = false;
};

/// The string's text, as nlohmann decodes it (escapes to UTF-8) and StreamChunk.cpp makes it a
/// QString: null when the member was not a string.
QString jsonText(const RawString& s);

} // namespace qs::detail
