// SPDX-License-Identifier: MIT
// Model names reduced to what they say about the weights (families, sizes, variants), with the
// quantization taken out: the basis of the model_unknown and models_differ guardrails.
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <QHash>
#include <QRegularExpression>
#include <algorithm>

namespace qs {

namespace {

using guardrails::addUnique;

// Path components that say nothing about the weights (docker mounts, HF cache layout, git revs).
bool genericPathPart(const QString& part)
{
    static const QRegularExpression hash(QStringLiteral("^[0-9a-f]{12,}$"));
    static const QRegularExpression checkpoint(QStringLiteral("^(checkpoint|step|epoch)[-_]?\\d+$"));
    static const QStringList generic = {QStringLiteral("model"), QStringLiteral("models"),
        QStringLiteral("weights"), QStringLiteral("snapshots"), QStringLiteral("main"), QStringLiteral("hub"),
        QStringLiteral("huggingface"), QStringLiteral(".cache"), QStringLiteral("~"), QStringLiteral("final"),
        QStringLiteral("merged"), QStringLiteral("output"), QStringLiteral("default"), QStringLiteral("data"),
        QStringLiteral("mnt"), QStringLiteral("home"), QStringLiteral("workspace")};
    return generic.contains(part) || hash.match(part).hasMatch() || checkpoint.match(part).hasMatch();
}

/// The part of a name that names the weights: no directories, org or file extension.
QString baseModelName(const QString& raw)
{
    QString s = raw.trimmed().toLower();
    s.replace(u'\\', u'/');
    static const QRegularExpression hfCache(QStringLiteral("models--[^/]+--([^/]+)"));
    const bool isPath = s.startsWith(u'/') || s.startsWith(u'~') || s.startsWith(u'.') || s.count(u'/') > 1;
    QStringList parts = s.split(u'/', Qt::SkipEmptyParts);
    if (isPath) {
        QString pick;
        for (qsizetype i = parts.size() - 1; i >= 0 && pick.isEmpty(); --i) {
            const QRegularExpressionMatch m = hfCache.match(parts.at(i));
            if (m.hasMatch())
                pick = m.captured(1);
            else if (!genericPathPart(parts.at(i)))
                pick = parts.at(i);
        }
        s = pick;
    } else if (!parts.isEmpty()) {
        s = parts.last(); // "org/name": the org is who uploaded it, not what it is
    } else {
        s.clear();
    }
    static const QRegularExpression extension(
        QStringLiteral("\\.(gguf|safetensors|bin|pt|pth|onnx|ggml|llamafile)$"));
    static const QRegularExpression split(QStringLiteral("-\\d{5}-of-\\d{5}$")); // GGUF shards
    s.remove(extension);
    s.remove(split);
    return s;
}

QString stripQuantization(QString s)
{
    // GGUF types (q4_k_m, q8_0, iq4_xs, unsloth's ud-q4_k_xl), then format and scheme words.
    static const QRegularExpression gguf(
        QStringLiteral("(?<![a-z0-9])(?:ud-)?i?q[1-8](?:_[a-z0-9]{1,3}){0,3}(?![a-z0-9])"));
    static const QRegularExpression words(QStringLiteral(
        "(?<![a-z0-9])(?:(?:nv|mx)?fp4(?:a16)?|fp6|fp8|fp16|fp32|bf16|f16|f32|int2|int3|int4|int8|nf4|"
        "w\\d+a\\d+|[2-8]bits?|awq|gptq|gguf|ggml|mlx|exl2|exl3|bnb|hqq|aqlm|eetq|modelopt|autoround|"
        "auto-round|llmcompressor|llm-compressor|compressed-tensors|quantized|quantised|quants?|dynamic|"
        "marlin|\\d+(?:\\.\\d+)?bpw|gs?\\d+|ud|imatrix|i1|e4m3|e5m2|qat|ptq)(?![a-z0-9])"));
    s.remove(gguf);
    s.remove(words);
    return s;
}

QStringList nameTokens(const QString& raw)
{
    static const QRegularExpression separators(QStringLiteral("[-_\\s/:+,()\\[\\]]+|(?<!\\d)\\.|\\.(?!\\d)"));
    static const QStringList noise = {QStringLiteral("hf"), QStringLiteral("meta"), QStringLiteral("unsloth"),
        QStringLiteral("bartowski"), QStringLiteral("mradermacher"), QStringLiteral("lmstudio"),
        QStringLiteral("community"), QStringLiteral("thebloke"), QStringLiteral("model"),
        QStringLiteral("sim"), QStringLiteral("simulated"), QStringLiteral("emulated")};
    QStringList out;
    for (const QString& t : stripQuantization(baseModelName(raw)).split(separators, Qt::SkipEmptyParts))
        if (!noise.contains(t))
            out << t;
    return out;
}

// Words that mark a different fine-tune or variant of the same family, by group. "reasoning" is
// left out: "Claude-4.6-Opus-Reasoning-Distilled" and "Opus-Distilled" name the same weights in
// the seeds.
const char* const kVariantGroups[][2] = {
    {"distilled", "distill distilled distillation opus sonnet haiku claude gpt4 gpt4o gpt5 o1 o3 r1"},
    {"instruct", "instruct it chat sft dpo rlhf grpo orpo kto ppo aligned assistant"},
    {"base", "base pt pretrained pretrain foundation"},
    {"thinking", "thinking think reasoner cot"},
    {"coder", "coder code codegen coding"},
    {"math", "math mathstral"},
    {"uncensored", "abliterated uncensored heretic unaligned decensored"},
    {"vision", "vl vision omni mm multimodal"},
    {"merge", "merge merged slerp ties dare frankenmerge"},
    {"roleplay", "rp roleplay creative story writer"},
    {"adapter", "lora qlora adapter peft"},
    // Tiers of one family are different models: each word is its own group.
    {"mini", "mini"},
    {"small", "small"},
    {"medium", "medium"},
    {"large", "large"},
    {"tiny", "tiny"},
    {"nano", "nano"},
    {"micro", "micro"},
    {"lite", "lite"},
    {"flash", "flash"},
    {"pro", "pro"},
    {"max", "max"},
    {"plus", "plus"},
    {"turbo", "turbo"},
    {"air", "air"},
    {"next", "next"},
};

QString variantGroupOf(const QString& token)
{
    static const QHash<QString, QString> groups = [] {
        QHash<QString, QString> h;
        for (const auto& g : kVariantGroups)
            for (const QString& w : QString::fromLatin1(g[1]).split(u' ', Qt::SkipEmptyParts))
                h.insert(w, QString::fromLatin1(g[0]));
        return h;
    }();
    return groups.value(token);
}

} // namespace

ModelIdentity modelIdentity(const QStringList& names)
{
    static const QRegularExpression size(
        QStringLiteral("^(?:\\d+(?:\\.\\d+)?[bmkt]|\\d+x\\d+(?:\\.\\d+)?b|[ae]\\d+(?:\\.\\d+)?b)$"));
    static const QRegularExpression family(QStringLiteral(
        "^(qwen|qwq|llama|codellama|mistral|mixtral|ministral|magistral|devstral|codestral|gemma|phi|"
        "deepseek|"
        "glm|chatglm|yi|falcon|granite|olmo|smollm|minicpm|internlm|command|nemotron|gpt|kimi|baichuan|"
        "exaone|hermes|hunyuan|ernie|jamba|starcoder|stablelm|aya|lfm|seed)(\\d+(?:\\.\\d+)*)?$"));
    static const QRegularExpression version(QStringLiteral("^\\d+(?:\\.\\d+)*$"));
    ModelIdentity id;
    for (const QString& name : names)
        for (const QString& t : nameTokens(name))
            addUnique(id.tokens, t);
    for (qsizetype i = 0; i < id.tokens.size(); ++i) {
        const QString& t = id.tokens.at(i);
        const QRegularExpressionMatch f = family.match(t);
        if (f.hasMatch()) {
            QString fam = t;
            // "llama-3.1" → llama3.1 (a bare version right after a bare family name belongs to it)
            if (f.captured(2).isEmpty() && i + 1 < id.tokens.size()
                && version.match(id.tokens.at(i + 1)).hasMatch())
                fam += id.tokens.at(++i);
            addUnique(id.families, fam);
        } else if (size.match(t).hasMatch()) {
            addUnique(id.sizes, t);
        } else if (const QString g = variantGroupOf(t); !g.isEmpty()) {
            auto it = std::find_if(
                id.variants.begin(), id.variants.end(), [&g](const auto& v) { return v.first == g; });
            if (it == id.variants.end())
                id.variants.emplace_back(g, QStringList {t});
            else
                addUnique(it->second, t);
        } else {
            addUnique(id.other, t);
        }
    }
    return id;
}

} // namespace qs
