// SPDX-License-Identifier: MIT
#include "tests/support/PrefixCache.h"

#include "tests/support/StableHash.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <algorithm>

namespace qs::emu::detail {

namespace {

// ChatML's special tokens; any fixed, distinct values do.
constexpr quint64 kStart = 0x51'5f'73'74'61'72'74ULL; // <|im_start|>
constexpr quint64 kNewline = 0x0aULL;
constexpr quint64 kEnd = 0x51'5f'65'6e'64ULL; // <|im_end|>

// FNV-1a over the UTF-16 code units: no allocation per word, stable across runs.
quint64 hashChars(const QChar* begin, const QChar* end)
{
    quint64 h = 0xCBF29CE484222325ULL;
    for (const QChar* c = begin; c != end; ++c) {
        h ^= c->unicode();
        h *= 0x100000001B3ULL;
    }
    return splitMix(h);
}

// One token per run of non-spaces, as countPromptTokens counts them.
void appendWords(TokenIds& out, const QString& text)
{
    const QChar* data = text.constData();
    const QChar* wordStart = nullptr;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        const bool space = i == text.size() || data[i].isSpace();
        if (!space && !wordStart)
            wordStart = data + i;
        if (space && wordStart) {
            out.push_back(hashChars(wordStart, data + i));
            wordStart = nullptr;
        }
    }
}

// `content` is a string or a list of parts; only text parts count.
void appendContent(TokenIds& out, const QJsonValue& content)
{
    if (content.isString()) {
        appendWords(out, content.toString());
        return;
    }
    for (const QJsonValue part : content.toArray())
        appendWords(out, part.toObject().value(QLatin1String("text")).toString());
}

void appendHeader(TokenIds& out, const QString& role)
{
    out.push_back(kStart);
    out.push_back(stableHash(QStringLiteral("role:") + role));
    out.push_back(kNewline);
}

quint64 digestOf(const QJsonValue& value)
{
    const QJsonDocument document
        = value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    return splitMix(stableHash(QString::fromUtf8(document.toJson(QJsonDocument::Compact))));
}

bool isSystem(const QJsonValue& message)
{
    const QString role = message.toObject().value(QLatin1String("role")).toString();
    return role == QLatin1String("system") || role == QLatin1String("developer");
}

} // namespace

TokenIds promptTokenIds(const QJsonObject& body)
{
    const QJsonArray messages = body.value(QLatin1String("messages")).toArray();
    const QJsonArray tools = body.value(QLatin1String("tools")).toArray();
    const quint64 toolsDigest = tools.isEmpty() ? 0 : digestOf(tools);
    TokenIds out;
    bool inSystemPrefix = true;
    for (const QJsonValue value : messages) {
        const QJsonObject message = value.toObject();
        if (inSystemPrefix && !isSystem(value)) {
            inSystemPrefix = false;
            const std::size_t firstAfterTools = out.size();
            appendHeader(out, message.value(QLatin1String("role")).toString());
            out[firstAfterTools] ^= toolsDigest;
        } else {
            appendHeader(out, message.value(QLatin1String("role")).toString());
        }
        appendContent(out, message.value(QLatin1String("content")));
        quint64 end = kEnd;
        for (const char* key : {"tool_calls", "tool_call_id", "name"}) {
            const QJsonValue extra = message.value(QLatin1String(key));
            if (!extra.isUndefined() && !extra.isNull())
                end ^= extra.isString() ? splitMix(stableHash(extra.toString())) : digestOf(extra);
        }
        out.push_back(end);
    }
    return out;
}

TokenIds withAnswer(TokenIds prompt, const QString& reasoning, const QString& content)
{
    appendHeader(prompt, QStringLiteral("assistant"));
    appendWords(prompt, reasoning);
    appendWords(prompt, content);
    return prompt;
}

int systemPrefixTokens(const QJsonObject& body)
{
    int tokens = 0;
    for (const QJsonValue value : body.value(QLatin1String("messages")).toArray()) {
        if (!isSystem(value))
            break;
        TokenIds words;
        appendContent(words, value.toObject().value(QLatin1String("content")));
        tokens += 4 + int(words.size());
    }
    return tokens;
}

std::size_t commonPrefix(const TokenIds& a, const TokenIds& b)
{
    const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    Q_UNUSED(ib);
    return std::size_t(ia - a.begin());
}

std::size_t PrefixCache::longestPrefix(const TokenIds& tokens) const
{
    std::lock_guard lock(m_mutex);
    std::size_t best = 0;
    for (const TokenIds& entry : m_entries) {
        best = std::max(best, commonPrefix(tokens, entry));
        if (best == tokens.size())
            break;
    }
    return best;
}

void PrefixCache::insert(TokenIds tokens, std::size_t maxSequences, std::size_t maxTokens)
{
    if (tokens.empty() || maxSequences == 0 || maxTokens == 0)
        return;
    if (tokens.size() > maxTokens)
        tokens.resize(maxTokens);
    std::lock_guard lock(m_mutex);
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        const std::size_t shared = commonPrefix(tokens, *it);
        if (shared == tokens.size()) { // already held: only mark it used
            m_entries.splice(m_entries.begin(), m_entries, it);
            return;
        }
        if (shared == it->size()) { // the new sequence extends it
            m_tokens -= it->size();
            it = m_entries.erase(it);
            continue;
        }
        ++it;
    }
    m_tokens += tokens.size();
    m_entries.push_front(std::move(tokens));
    while (m_entries.size() > maxSequences || m_tokens > maxTokens) {
        m_tokens -= m_entries.back().size();
        m_entries.pop_back();
    }
}

void PrefixCache::clear()
{
    std::lock_guard lock(m_mutex);
    m_entries.clear();
    m_tokens = 0;
}

PrefixCacheStats PrefixCache::stats() const
{
    std::lock_guard lock(m_mutex);
    return PrefixCacheStats {m_entries.size(), m_tokens};
}

} // namespace qs::emu::detail
