// SPDX-License-Identifier: MIT
#include "model/evaluate/Guardrails.h"

#include "model/core/Percentile.h"

#include <QHash>
#include <QRegularExpression>
#include <QUrl>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace qs {

namespace {

using Severity = Guardrail::Severity;
using json = nlohmann::json;

// ---- thresholds (docs/guardrails.md explains each) ------------------------------------------

constexpr int kMinRuns = 5; // measured successful runs per endpoint × test (× turn × level)
constexpr double kColdFactor = 3.0; // first measured TTFT vs the median of the other runs…
constexpr double kColdAbsoluteMs = 500; // …and at least this much slower
constexpr double kCacheShare = 0.9; // cached prompt tokens / prompt tokens that make a "cache hit"
constexpr double kFailureRate = 0.2; // share of failed measured requests on one arm
constexpr double kTokenRelTolerance = 0.1; // token counts may differ by 10 % (min kTokenAbsTolerance)
constexpr qint64 kTokenAbsTolerance = 2; // the EOS token, a held-back UTF-8 piece
constexpr int kListMax = 6; // items listed in one piece of evidence before "…"

// ---- small helpers --------------------------------------------------------------------------

QString jsonString(const json& j, const char* key)
{
    if (j.is_object() && j.contains(key) && j[key].is_string())
        return QString::fromStdString(j[key].get<std::string>());
    return {};
}

QString dumpValue(const json& v)
{
    return QString::fromStdString(v.dump());
}

QString fmtMs(double ms)
{
    if (std::abs(ms) >= 10)
        return QString::number(std::llround(ms)) + QStringLiteral(" ms");
    return QString::number(ms, 'f', 1) + QStringLiteral(" ms");
}

QString fmtPercent(double share)
{
    return QString::number(std::llround(share * 100)) + QStringLiteral(" %");
}

double median(std::vector<double> values)
{
    return percentile(std::move(values), 50).value_or(0);
}

QString listed(const QStringList& items, int max = kListMax)
{
    if (items.size() <= max)
        return items.join(QStringLiteral(", "));
    return items.mid(0, max).join(QStringLiteral(", "))
        + QStringLiteral(", … (%1 more)").arg(items.size() - max);
}

void addUnique(QStringList& list, const QString& item)
{
    if (!item.isEmpty() && !list.contains(item))
        list << item;
}

bool sentTools(const RunRecord& r)
{
    const json& b = r.request.requestBody;
    return b.is_object() && b.contains("tools") && b["tools"].is_array() && !b["tools"].empty();
}

bool ignoresEos(const RunRecord& r)
{
    const json& b = r.request.requestBody;
    return b.is_object() && b.contains("ignore_eos") && b["ignore_eos"].is_boolean()
        && b["ignore_eos"].get<bool>();
}

std::optional<qint64> requestedMaxTokens(const RunRecord& r)
{
    const json& b = r.request.requestBody;
    for (const char* key : {"max_tokens", "max_completion_tokens", "n_predict"})
        if (b.is_object() && b.contains(key) && b[key].is_number_integer())
            return b[key].get<qint64>();
    return std::nullopt;
}

/// The thinking a response carried before its answer: the reasoning field plus thinking leaked
/// into content (before `</think>`), tags removed. Empty when the model did not think.
QString thinkingText(const RunRecord& r)
{
    const AssembledResponse& a = r.request.response;
    QString t = a.reasoning;
    if (r.request.metrics.thinkingInContent)
        t += a.content.left(r.request.metrics.visibleContentOffset);
    t.remove(QStringLiteral("<think>")).remove(QStringLiteral("</think>"));
    return t.trimmed();
}

bool thought(const RunRecord& r)
{
    return !thinkingText(r).isEmpty();
}

Guardrail make(const char* id, Severity severity, QString title, QString evidence, QString advice,
    std::vector<int> endpoints, QStringList tests = {})
{
    std::sort(endpoints.begin(), endpoints.end());
    endpoints.erase(std::unique(endpoints.begin(), endpoints.end()), endpoints.end());
    return Guardrail {QString::fromLatin1(id), severity, std::move(title), std::move(evidence),
        std::move(advice), std::move(endpoints), std::move(tests)};
}

// ---- the run, indexed once -------------------------------------------------------------------

struct Context {
    const RunResult& run;
    std::vector<int> arms; ///< endpoints with at least one measured request, ascending
    std::vector<std::vector<const RunRecord*>> measured; ///< per endpoint, in start order
    std::vector<std::vector<const RunRecord*>> all; ///< per endpoint, warm-ups included, in start order
    QStringList tests; ///< test ids in order of first appearance

    explicit Context(const RunResult& r)
        : run(r)
        , measured(r.endpoints.size())
        , all(r.endpoints.size())
    {
        for (const RunRecord& rec : r.records) {
            if (rec.endpoint < 0 || std::size_t(rec.endpoint) >= r.endpoints.size())
                continue;
            all[std::size_t(rec.endpoint)].push_back(&rec);
            if (!rec.warmup)
                measured[std::size_t(rec.endpoint)].push_back(&rec);
            addUnique(tests, rec.test);
        }
        // Records arrive in finish order; the plan's order is the start order.
        const auto byStart
            = [](const RunRecord* a, const RunRecord* b) { return a->startOffsetMs < b->startOffsetMs; };
        for (auto& v : measured)
            std::stable_sort(v.begin(), v.end(), byStart);
        for (auto& v : all)
            std::stable_sort(v.begin(), v.end(), byStart);
        for (std::size_t i = 0; i < measured.size(); ++i)
            if (!measured[i].empty())
                arms.push_back(int(i));
    }

    const RunEndpoint& endpoint(int e) const { return run.endpoints[std::size_t(e)]; }
    QString name(int e) const { return QStringLiteral("\"%1\"").arg(endpoint(e).endpoint.displayName()); }

    std::vector<const RunRecord*> completed(int e) const
    {
        std::vector<const RunRecord*> out;
        for (const RunRecord* r : measured[std::size_t(e)])
            if (r->request.ok())
                out.push_back(r);
        return out;
    }

    Runtime runtime(int e) const
    {
        const RunEndpoint& re = endpoint(e);
        if (re.endpoint.runtime != Runtime::Unknown)
            return re.endpoint.runtime;
        return runtimeFromName(jsonString(re.probe, "runtime")).value_or(Runtime::Unknown);
    }

    void sortTests(QStringList& list) const
    {
        std::sort(list.begin(), list.end(),
            [this](const QString& a, const QString& b) { return tests.indexOf(a) < tests.indexOf(b); });
    }
};

// ---- model identity ----------------------------------------------------------------------------

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

namespace {

// ---- the checks ------------------------------------------------------------------------------

/// Every name the run knows for the weights behind an endpoint.
QStringList modelNames(const Context& ctx, int e)
{
    const RunEndpoint& re = ctx.endpoint(e);
    const json& p = re.probe;
    QStringList names;
    const bool listed = !(p.is_object() && p.contains("model_listed") && p["model_listed"].is_boolean())
        || p["model_listed"].get<bool>();
    if (listed) {
        addUnique(names, re.endpoint.model);
        addUnique(names, jsonString(p, "model"));
    } else if (p.contains("models") && p["models"].is_array() && !p["models"].empty()
        && p["models"][0].is_string()) {
        // llama-server and SGLang ignore a model name they do not serve: the listed one answers.
        addUnique(names, QString::fromStdString(p["models"][0].get<std::string>()));
    }
    addUnique(names, jsonString(p, "model_path"));
    return names;
}

QString quotedNames(const QStringList& names)
{
    QStringList q;
    for (const QString& n : names)
        q << QStringLiteral("'%1'").arg(n);
    return q.isEmpty() ? QStringLiteral("(no model name)") : q.join(QStringLiteral(" / "));
}

QString variantText(const std::pair<QString, QStringList>& v)
{
    return QStringLiteral("%1 (%2)").arg(v.first, v.second.join(QStringLiteral(", ")));
}

void checkModels(const Context& ctx, std::vector<Guardrail>& out)
{
    if (ctx.arms.size() < 2)
        return;
    std::vector<ModelIdentity> ids;
    for (int e : ctx.arms)
        ids.push_back(modelIdentity(modelNames(ctx, e)));

    QStringList unknown;
    std::vector<int> unknownArms;
    for (std::size_t i = 0; i < ctx.arms.size(); ++i) {
        if (!ids[i].informative()) {
            unknown << QStringLiteral("%1 serves %2")
                           .arg(ctx.name(ctx.arms[i]), quotedNames(modelNames(ctx, ctx.arms[i])));
            unknownArms.push_back(ctx.arms[i]);
        }
    }
    if (!unknown.isEmpty())
        out.push_back(make("model_unknown", Severity::Info,
            QStringLiteral("Cannot tell from the model name which weights an endpoint serves"),
            unknown.join(QStringLiteral("; "))
                + QStringLiteral(
                    ": no model family or size in the name, so Quantscope cannot check that the arms "
                    "run the same model"),
            QStringLiteral("Serve the model under its repository name (vLLM/SGLang --served-model-name, "
                           "llama-server --alias) or check by hand that every arm runs the same fine-tune "
                           "and size. The seeds compared a base model with a distilled one for three rounds "
                           "before noticing."),
            unknownArms));

    // Compare every arm with the first (the baseline) on what the names do say.
    Severity worst = Severity::Info;
    QStringList evidence;
    std::vector<int> involved;
    const int base = ctx.arms.front();
    const ModelIdentity& a = ids.front();
    for (std::size_t i = 1; i < ctx.arms.size(); ++i) {
        const ModelIdentity& b = ids[i];
        if (!a.informative() || !b.informative())
            continue;
        const int other = ctx.arms[i];
        QStringList reasons;
        Severity severity = Severity::Info;
        const auto asSet = [](const QStringList& l) { return std::set<QString>(l.begin(), l.end()); };
        if (!a.families.isEmpty() && !b.families.isEmpty() && asSet(a.families) != asSet(b.families)) {
            reasons << QStringLiteral("different model families (%1 vs %2)")
                           .arg(a.families.join(u'+'), b.families.join(u'+'));
            severity = Severity::Critical;
        }
        if (!a.sizes.isEmpty() && !b.sizes.isEmpty() && asSet(a.sizes) != asSet(b.sizes)) {
            reasons
                << QStringLiteral("different sizes (%1 vs %2)").arg(a.sizes.join(u'+'), b.sizes.join(u'+'));
            severity = Severity::Critical;
        }
        const auto onlyIn = [](const ModelIdentity& x, const ModelIdentity& y) {
            std::vector<std::pair<QString, QStringList>> only;
            for (const auto& v : x.variants)
                if (std::none_of(y.variants.begin(), y.variants.end(),
                        [&v](const auto& w) { return w.first == v.first; }))
                    only.push_back(v);
            return only;
        };
        const auto onlyA = onlyIn(a, b);
        const auto onlyB = onlyIn(b, a);
        const auto describe
            = [&](const std::vector<std::pair<QString, QStringList>>& only, int who, bool otherHasNone) {
                  for (const auto& v : only) {
                      reasons << QStringLiteral("%1 only in %2").arg(variantText(v), ctx.name(who));
                      // An unsuffixed name is often the instruct model itself ("Qwen3.5-27B"): weaker
                      // evidence.
                      const bool ambiguous = v.first == u"instruct" && otherHasNone;
                      severity = std::max(severity, ambiguous ? Severity::Warning : Severity::Critical);
                  }
              };
        describe(onlyA, base, b.variants.empty());
        describe(onlyB, other, a.variants.empty());
        if (reasons.isEmpty()) {
            QStringList otherA, otherB;
            for (const QString& t : a.other)
                if (!b.other.contains(t))
                    otherA << t;
            for (const QString& t : b.other)
                if (!a.other.contains(t))
                    otherB << t;
            if (!otherA.isEmpty())
                reasons << QStringLiteral("only %1 has %2")
                               .arg(ctx.name(base), otherA.join(QStringLiteral(", ")));
            if (!otherB.isEmpty())
                reasons << QStringLiteral("only %1 has %2")
                               .arg(ctx.name(other), otherB.join(QStringLiteral(", ")));
        }
        if (reasons.isEmpty())
            continue;
        worst = std::max(worst, severity);
        evidence << QStringLiteral("%1 model %2 vs %3 model %4: %5")
                        .arg(ctx.name(base), quotedNames(modelNames(ctx, base)), ctx.name(other),
                            quotedNames(modelNames(ctx, other)), reasons.join(QStringLiteral("; ")));
        involved.push_back(base);
        involved.push_back(other);
    }
    if (evidence.isEmpty())
        return;
    const QString title = worst == Severity::Info
        ? QStringLiteral("Model names differ in more than quantization; check they are the same weights")
        : QStringLiteral("The arms run different models, not just different quantizations");
    out.push_back(make("models_differ", worst, title, evidence.join(QStringLiteral(" | ")),
        QStringLiteral(
            "Compare the same fine-tune and size in both quantizations (quantize the model you run "
            "yourself if nobody published it). Any difference measured here mixes the models' own "
            "behaviour (verbosity, thinking, manners) with the quantization — the seeds' v1-v4 were "
            "confounded this way (base Qwen3.5-9B NVFP4 vs Opus-Distilled Q4_K_M, then 27B vs 9B)."),
        involved));
}

void checkReasoningInTtft(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList evidence, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const auto done = ctx.completed(e);
        int n = 0, leaked = 0, invisible = 0;
        std::vector<double> reasoning, any, visible;
        for (const RunRecord* r : done) {
            if (!thought(*r))
                continue;
            ++n;
            addUnique(tests, r->test);
            const RequestMetrics& m = r->request.metrics;
            leaked += m.thinkingInContent ? 1 : 0;
            if (!m.ttftVisibleMs)
                ++invisible;
            if (m.reasoningMs)
                reasoning.push_back(*m.reasoningMs);
            if (m.ttftAnyMs)
                any.push_back(*m.ttftAnyMs);
            if (m.ttftVisibleMs)
                visible.push_back(*m.ttftVisibleMs);
        }
        if (n == 0)
            continue;
        QString line = QStringLiteral("%1: %2/%3 measured requests began with thinking")
                           .arg(ctx.name(e))
                           .arg(n)
                           .arg(done.size());
        if (leaked > 0)
            line += QStringLiteral(" (%1 leaked into content: no reasoning parser)").arg(leaked);
        if (!reasoning.empty())
            line += QStringLiteral("; median reasoning_ms %1 (ttft_any %2 vs ttft_visible %3)")
                        .arg(fmtMs(median(reasoning)), fmtMs(median(any)), fmtMs(median(visible)));
        if (invisible > 0)
            line
                += QStringLiteral("; %1 had no visible answer at all, so their only TTFT is a thinking token")
                       .arg(invisible);
        evidence << line;
        involved.push_back(e);
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("reasoning_in_ttft", Severity::Warning,
        QStringLiteral("TTFT (any token) includes thinking on some arms"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "Compare ttft_visible_ms (the first answer token, what a listener waits for), never "
            "ttft_any_ms, across these arms. The seeds' 82 ms \"TTFT\" was the first thinking token; "
            "the answer came seconds later. For a voice assistant, turn thinking off on every arm "
            "(chat_template_kwargs.enable_thinking=false, llama-server --reasoning-budget 0), and "
            "start servers with a reasoning parser (vLLM/SGLang --reasoning-parser qwen3) so thinking "
            "never lands in the answer."),
        involved, tests));
}

void checkEstimatedTokens(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList evidence, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const auto done = ctx.completed(e);
        int n = 0;
        for (const RunRecord* r : done) {
            if (r->request.metrics.completionTokens.isEstimate()) {
                ++n;
                addUnique(tests, r->test);
            }
        }
        if (n == 0)
            continue;
        evidence << QStringLiteral(
            "%1: completion_tokens of %2/%3 measured requests are estimates (one token per "
            "token-bearing event): the server sent no usage")
                        .arg(ctx.name(e))
                        .arg(n)
                        .arg(done.size());
        involved.push_back(e);
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("estimated_tokens", Severity::Warning,
        QStringLiteral("Token counts are estimated, not reported by the server"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "decode_tps and token totals on these arms rest on the estimate, which is wrong whenever the "
            "server batches tokens per event. Let usage through: Quantscope asks for "
            "stream_options.include_usage; a proxy in between may drop it, and old servers ignore it. "
            "The seeds guessed tokens as len(text)/4 and compared the guesses."),
        involved, tests));
}

/// Measured records of one arm grouped by (test, turn, concurrency level).
using GroupKey = std::tuple<QString, int, int>;

std::map<GroupKey, std::vector<const RunRecord*>> groups(const std::vector<const RunRecord*>& records)
{
    std::map<GroupKey, std::vector<const RunRecord*>> g;
    for (const RunRecord* r : records)
        g[{r->test, r->turn, r->concurrency}].push_back(r);
    return g;
}

QString groupName(const GroupKey& k, bool showLevel)
{
    QString s = std::get<0>(k);
    if (std::get<1>(k) > 1)
        s += QStringLiteral(" turn %1").arg(std::get<1>(k));
    if (showLevel)
        s += QStringLiteral(" @c%1").arg(std::get<2>(k));
    return s;
}

void checkFewRuns(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList evidence, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const auto g = groups(ctx.measured[std::size_t(e)]);
        std::set<int> levels;
        for (const auto& [k, v] : g)
            levels.insert(std::get<2>(k));
        // In the run's test order, then turn and level.
        std::vector<std::pair<GroupKey, std::vector<const RunRecord*>>> ordered(g.begin(), g.end());
        std::stable_sort(ordered.begin(), ordered.end(), [&ctx](const auto& a, const auto& b) {
            return ctx.tests.indexOf(std::get<0>(a.first)) < ctx.tests.indexOf(std::get<0>(b.first));
        });
        QStringList few;
        for (const auto& [k, records] : ordered) {
            const auto ok = std::count_if(
                records.begin(), records.end(), [](const RunRecord* r) { return r->request.ok(); });
            // No success at all: nothing to summarise; the failure guardrails explain why.
            if (ok == 0 || ok >= kMinRuns)
                continue;
            QString item = QStringLiteral("%1 n=%2").arg(groupName(k, levels.size() > 1)).arg(ok);
            if (qsizetype(records.size()) > ok)
                item += QStringLiteral(" (of %1)").arg(records.size());
            few << item;
            addUnique(tests, std::get<0>(k));
        }
        if (few.isEmpty())
            continue;
        evidence << QStringLiteral("%1: %2").arg(ctx.name(e), listed(few));
        involved.push_back(e);
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("few_runs", Severity::Warning,
        QStringLiteral("Fewer than %1 successful measured runs per test").arg(kMinRuns),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "Run at least %1 measured runs per test (--runs %1; 10 or more before reading p90/p95). "
            "With the seeds' n=3 one cold start moved the median and no interval could exclude "
            "\"no difference\".")
            .arg(kMinRuns),
        involved, tests));
}

std::optional<double> cachedShare(const RunRecord& r)
{
    const RequestMetrics& m = r.request.metrics;
    if (!m.promptTokens.value || !m.cachedPromptTokens.value || *m.promptTokens.value <= 0)
        return std::nullopt;
    return double(*m.cachedPromptTokens.value) / double(*m.promptTokens.value);
}

void checkColdStart(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList outliers, unwarmed, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const auto& all = ctx.all[std::size_t(e)];
        if (!all.empty() && !all.front()->warmup) {
            unwarmed << ctx.name(e);
            involved.push_back(e);
        }
        for (const auto& [k, records] : groups(ctx.completed(e))) {
            if (records.size() < 3 || !records.front()->request.metrics.ttftAnyMs)
                continue;
            const double first = *records.front()->request.metrics.ttftAnyMs;
            std::vector<double> rest;
            int restCached = 0;
            for (std::size_t i = 1; i < records.size(); ++i) {
                if (records[i]->request.metrics.ttftAnyMs)
                    rest.push_back(*records[i]->request.metrics.ttftAnyMs);
                restCached += cachedShare(*records[i]).value_or(0) >= kCacheShare ? 1 : 0;
            }
            if (rest.size() < 2)
                continue;
            // The later runs were prefix-cache hits: the first is slower for a known reason (prefix_cache).
            if (restCached * 2 > int(rest.size()) && cachedShare(*records.front()).value_or(0) < kCacheShare)
                continue;
            const double m = median(rest);
            if (first > kColdFactor * m && first - m > kColdAbsoluteMs) {
                outliers << QStringLiteral(
                    "%1 %2 run %3: ttft_any %4 vs median %5 of the other %6 runs (%7×)")
                                .arg(ctx.name(e), groupName(k, false))
                                .arg(records.front()->iteration)
                                .arg(fmtMs(first), fmtMs(m))
                                .arg(rest.size())
                                .arg(m > 0 ? QString::number(first / m, 'f', 1) : QStringLiteral("∞"));
                addUnique(tests, std::get<0>(k));
                involved.push_back(e);
            }
        }
    }
    if (outliers.isEmpty() && unwarmed.isEmpty())
        return;
    QStringList evidence = outliers;
    if (!unwarmed.isEmpty())
        evidence << QStringLiteral("no warm-up request before the first measured one on %1")
                        .arg(unwarmed.join(QStringLiteral(", ")));
    ctx.sortTests(tests);
    out.push_back(make("cold_start", outliers.isEmpty() ? Severity::Info : Severity::Warning,
        outliers.isEmpty()
            ? QStringLiteral("No warm-up before the first measured request")
            : QStringLiteral("A first measured request is far slower than the rest (cold start)"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "Keep warm-ups on (--warmup 2, the default): they absorb CUDA graph capture, kernel "
            "autotuning and first allocations, and never enter statistics. The seeds had cold starts "
            "of 9.3 s and 110 s inside n=3 statistics. Re-run, or drop the outlier run and say so."),
        involved, tests));
}

/// Thinking-related request fields, e.g. {"chat_template_kwargs.enable_thinking": false}.
json thinkingSettings(const json& body)
{
    json sig = json::object();
    if (!body.is_object())
        return sig;
    if (body.contains("chat_template_kwargs") && body["chat_template_kwargs"].is_object())
        for (const char* key : {"enable_thinking", "thinking", "reasoning_effort", "thinking_budget"})
            if (body["chat_template_kwargs"].contains(key))
                sig[std::string("chat_template_kwargs.") + key] = body["chat_template_kwargs"][key];
    for (const char* key :
        {"reasoning_effort", "reasoning", "thinking", "think", "thinking_budget", "reasoning_budget"})
        if (body.contains(key))
            sig[key] = body[key];
    return sig;
}

QString settingsText(const json& sig)
{
    if (sig.empty())
        return QStringLiteral("nothing");
    QStringList parts;
    for (auto it = sig.begin(); it != sig.end(); ++it)
        parts << QString::fromStdString(it.key()) + u'=' + dumpValue(it.value());
    return parts.join(QStringLiteral(", "));
}

/// The first measured request body per (arm, test).
std::map<std::pair<int, QString>, const json*> firstBodies(const Context& ctx)
{
    std::map<std::pair<int, QString>, const json*> bodies;
    for (int e : ctx.arms)
        for (const RunRecord* r : ctx.measured[std::size_t(e)])
            bodies.emplace(std::make_pair(e, r->test), &r->request.requestBody);
    return bodies;
}

/// Per test, each arm's value of `settings(body)`, compared with the first arm that ran the test.
QStringList compareSettingsPerTest(
    const Context& ctx, json (*settings)(const json&), QStringList& tests, std::vector<int>& involved)
{
    const auto bodies = firstBodies(ctx);
    std::map<QString, QStringList> byDifference;
    QStringList order;
    for (const QString& test : ctx.tests) {
        std::vector<std::pair<int, json>> perArm;
        for (int e : ctx.arms) {
            const auto it = bodies.find({e, test});
            if (it != bodies.end())
                perArm.emplace_back(e, settings(*it->second));
        }
        if (perArm.size() < 2)
            continue;
        QStringList diffs;
        for (std::size_t i = 1; i < perArm.size(); ++i) {
            if (perArm[i].second == perArm[0].second)
                continue;
            // Only the keys that differ, so the evidence reads "temperature=0.7 vs 0".
            json a = json::object(), b = json::object();
            for (auto it = perArm[0].second.begin(); it != perArm[0].second.end(); ++it)
                if (!perArm[i].second.contains(it.key()) || perArm[i].second[it.key()] != it.value())
                    a[it.key()] = it.value();
            for (auto it = perArm[i].second.begin(); it != perArm[i].second.end(); ++it)
                if (!perArm[0].second.contains(it.key()) || perArm[0].second[it.key()] != it.value())
                    b[it.key()] = it.value();
            diffs << QStringLiteral("%1 sends %2, %3 sends %4")
                         .arg(ctx.name(perArm[0].first), settingsText(a), ctx.name(perArm[i].first),
                             settingsText(b));
            involved.push_back(perArm[0].first);
            involved.push_back(perArm[i].first);
        }
        if (diffs.isEmpty())
            continue;
        const QString text = diffs.join(QStringLiteral("; "));
        byDifference[text] << test;
        addUnique(order, text);
        addUnique(tests, test);
    }
    // Tests with the same difference share one line ("tests factual, weather: …").
    QStringList evidence;
    for (const QString& text : order) {
        const QStringList& t = byDifference[text];
        evidence << QStringLiteral("%1 %2: %3")
                        .arg(t.size() == 1 ? QStringLiteral("test") : QStringLiteral("tests"),
                            t.join(QStringLiteral(", ")), text);
    }
    return evidence;
}

void checkThinkingDiffers(const Context& ctx, std::vector<Guardrail>& out)
{
    if (ctx.arms.size() < 2)
        return;
    QStringList tests;
    std::vector<int> involved;
    const QStringList settings = compareSettingsPerTest(ctx, &thinkingSettings, tests, involved);

    // Behaviour: one arm thought and another never did (server-side settings such as
    // llama-server --reasoning-budget 0 never appear in a request body).
    QStringList thinkers, silent;
    std::vector<int> thinkerArms, silentArms;
    for (int e : ctx.arms) {
        const auto done = ctx.completed(e);
        if (done.empty())
            continue;
        const auto n
            = std::count_if(done.begin(), done.end(), [](const RunRecord* r) { return thought(*r); });
        const QString text = QStringLiteral("%1 in %2/%3").arg(ctx.name(e)).arg(n).arg(done.size());
        if (n > 0) {
            thinkers << text;
            thinkerArms.push_back(e);
        } else {
            silent << text;
            silentArms.push_back(e);
        }
    }
    const bool behaviourDiffers = !thinkers.isEmpty() && !silent.isEmpty();
    if (settings.isEmpty() && !behaviourDiffers)
        return;
    QStringList evidence = settings;
    if (behaviourDiffers) {
        evidence << QStringLiteral("measured requests with thinking: %1, %2")
                        .arg(thinkers.join(QStringLiteral(", ")), silent.join(QStringLiteral(", ")));
        involved.insert(involved.end(), thinkerArms.begin(), thinkerArms.end());
        involved.insert(involved.end(), silentArms.begin(), silentArms.end());
        for (int e : thinkerArms)
            for (const RunRecord* r : ctx.completed(e))
                if (thought(*r))
                    addUnique(tests, r->test);
    }
    ctx.sortTests(tests);
    out.push_back(make("thinking_differs", settings.isEmpty() ? Severity::Warning : Severity::Critical,
        settings.isEmpty() ? QStringLiteral("One arm thinks and another does not")
                           : QStringLiteral("The arms were sent different thinking settings"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "Thinking on one arm only turns a latency comparison into \"thinking vs not thinking\" "
            "(the seeds' v2: 3-16 s of thinking before the answer on one arm, none on the other). Send "
            "the same setting to every arm (the suite's \"thinking\": false sends "
            "chat_template_kwargs.enable_thinking=false) and check server-side switches (llama-server "
            "--reasoning-budget 0, a reasoning parser) match; a model that thinks although asked not "
            "to is a finding about that model."),
        involved, tests));
}

void checkRuntimes(const Context& ctx, std::vector<Guardrail>& out)
{
    std::set<Runtime> seen;
    QStringList parts;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const Runtime rt = ctx.runtime(e);
        if (rt == Runtime::Unknown || rt == Runtime::Other)
            continue;
        seen.insert(rt);
        const QString version = jsonString(ctx.endpoint(e).probe, "server_version");
        parts << QStringLiteral("%1 %2%3").arg(ctx.name(e), runtimeName(rt),
            version.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(version));
        involved.push_back(e);
    }
    if (seen.size() < 2)
        return;
    out.push_back(make("runtimes_differ", Severity::Warning,
        QStringLiteral("Different runtimes: the comparison confounds runtime and quantization"),
        parts.join(QStringLiteral(", ")),
        QStringLiteral(
            "TTFT, decode rate and output handling differ between runtimes by themselves (kernels, CUDA "
            "graphs or --enforce-eager, scheduling, chat-template and parser handling). This is the "
            "right comparison for a deployment decision, but do not attribute the differences to the "
            "quantization alone; to isolate it, serve both quantizations on one runtime."),
        involved));
}

bool toolMarkup(const QString& content)
{
    static const QRegularExpression markup(QStringLiteral(
        "<tool_call>|</tool_call>|<function=|<\\|tool_call|\\[TOOL_CALLS\\]|<\\|python_tag\\|>|"
        "\"name\"\\s*:\\s*\"[^\"]*\"\\s*,\\s*\"(arguments|parameters)\"\\s*:"));
    return markup.match(content).hasMatch();
}

QString toolFlags(Runtime rt)
{
    switch (rt) {
    case Runtime::Vllm:
        return QStringLiteral(
            "vLLM needs --enable-auto-tool-choice --tool-call-parser <parser> (qwen3_coder for "
            "Qwen3.5, hermes for Qwen2.5/Qwen3)");
    case Runtime::Sglang:
        return QStringLiteral("SGLang needs --tool-call-parser <parser> (qwen3_coder for Qwen3.5, qwen25 for "
                              "Qwen2.5/Qwen3)");
    case Runtime::LlamaServer:
        return QStringLiteral("llama-server needs --jinja (and a chat template that supports tools)");
    case Runtime::Other:
    case Runtime::Unknown:
        break;
    }
    return QStringLiteral("the server needs its tool-call parser enabled");
}

void checkToolParser(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList evidence, tests, flags;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        QStringList found;
        int notEnabled = 0, toolRequests = 0, structured = 0, markup = 0;
        QString message;
        for (const RunRecord* r : ctx.all[std::size_t(e)]) {
            if (r->request.failure.kind == FailureKind::ToolsNotEnabled) {
                ++notEnabled;
                addUnique(tests, r->test);
                if (message.isEmpty())
                    message = r->request.failure.serverMessage.left(160);
            }
            if (!sentTools(*r) || !r->request.ok())
                continue;
            ++toolRequests;
            structured += r->request.response.toolCalls.empty() ? 0 : 1;
            if (toolMarkup(r->request.response.content)) {
                ++markup;
                addUnique(tests, r->test);
            }
        }
        if (notEnabled > 0)
            found << QStringLiteral("%1 requests with tools were refused as tools_not_enabled%2")
                         .arg(notEnabled)
                         .arg(message.isEmpty() ? QString() : QStringLiteral(" (server: %1)").arg(message));
        const json& probe = ctx.endpoint(e).probe;
        const bool sawServerInfo
            = jsonString(probe, "runtime_evidence").contains(QStringLiteral("server_info"));
        if (ctx.runtime(e) == Runtime::Sglang && sawServerInfo
            && jsonString(probe, "tool_call_parser").isEmpty() && toolRequests > 0)
            found << QStringLiteral("/server_info shows no tool_call_parser although %1 requests sent tools")
                         .arg(toolRequests);
        // Markup with no structured call ever: nothing parses tool calls here. (Markup beside working
        // structured calls is the model's own slip, judged by the tool_call quality gate instead.)
        if (markup > 0 && structured == 0)
            found << QStringLiteral("%1/%2 tool requests came back with tool-call markup in content and none "
                                    "through the tool_calls channel")
                         .arg(markup)
                         .arg(toolRequests);
        if (found.isEmpty())
            continue;
        evidence << QStringLiteral("%1: %2").arg(ctx.name(e), found.join(QStringLiteral("; ")));
        addUnique(flags, toolFlags(ctx.runtime(e)));
        involved.push_back(e);
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("tools_without_parser", Severity::Critical,
        QStringLiteral("Tools were requested from a server without a tool-call parser"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "This is the server's configuration, not the model: %1. Restart the server with it and re-run "
            "the tool tests; until then tool results on this arm say nothing about the quantization "
            "(the seeds' v1 got a 400 on every tool call and called it a model failure).")
            .arg(flags.join(QStringLiteral("; "))),
        involved, tests));
}

void checkTruncated(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList evidence, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const auto done = ctx.completed(e);
        std::map<QString, int> perTest;
        std::set<qint64> limits;
        int n = 0, invisible = 0;
        for (const RunRecord* r : done) {
            // Throughput tests ask for exactly max_tokens (ignore_eos): "length" is their purpose.
            if (r->request.response.finishReason != u"length" || ignoresEos(*r))
                continue;
            ++n;
            ++perTest[r->test];
            addUnique(tests, r->test);
            if (const auto limit = requestedMaxTokens(*r))
                limits.insert(*limit);
            invisible += r->request.metrics.ttftVisibleMs ? 0 : 1;
        }
        if (n == 0)
            continue;
        QStringList where;
        for (const auto& [test, count] : perTest)
            where << QStringLiteral("%1 (%2)").arg(test).arg(count);
        QStringList limitText;
        for (qint64 l : limits)
            limitText << QString::number(l);
        QString line = QStringLiteral("%1: %2/%3 measured requests stopped at max_tokens%4 (finish_reason "
                                      "\"length\"): %5")
                           .arg(ctx.name(e))
                           .arg(n)
                           .arg(done.size())
                           .arg(limitText.isEmpty() ? QString() : QStringLiteral("=") + limitText.join(u'/'),
                               listed(where));
        if (invisible > 0)
            line += QStringLiteral("; %1 of them had no visible answer (thinking used the whole budget)")
                        .arg(invisible);
        evidence << line;
        involved.push_back(e);
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("truncated_answers", Severity::Warning,
        QStringLiteral("Answers were cut off at max_tokens"), evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "A truncated answer has a shorter e2e time and fails quality gates for a reason that is not "
            "the model's. Raise max_tokens for these tests, or turn thinking off (the seeds' v2: the "
            "model spent its whole budget thinking and answered nothing)."),
        involved, tests));
}

void checkTokenCounts(const Context& ctx, std::vector<Guardrail>& out)
{
    const auto disagree = [](qint64 a, qint64 b) {
        const qint64 tolerance
            = std::max(kTokenAbsTolerance, qint64(std::ceil(kTokenRelTolerance * double(std::max(a, b)))));
        return std::llabs(a - b) > tolerance;
    };
    QStringList evidence, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const bool oneTokenPerEvent = ctx.runtime(e) == Runtime::LlamaServer;
        int comparable = 0, mismatched = 0;
        std::vector<double> usageN, timingsN, counted, events;
        QStringList kinds;
        for (const RunRecord* r : ctx.completed(e)) {
            const AssembledResponse& a = r->request.response;
            const RequestMetrics& m = r->request.metrics;
            if (!m.completionTokens.value || m.completionTokens.isEstimate())
                continue;
            const qint64 count = *m.completionTokens.value;
            bool bad = false, any = false;
            if (a.usage && a.usage->completionTokens && a.timings && a.timings->predictedN) {
                any = true;
                if (disagree(*a.usage->completionTokens, *a.timings->predictedN)) {
                    bad = true;
                    usageN.push_back(double(*a.usage->completionTokens));
                    timingsN.push_back(double(*a.timings->predictedN));
                    addUnique(kinds, QStringLiteral("usage vs timings"));
                }
            }
            // Events vs count: only for plain text (tool-call parsers buffer many tokens per event).
            if (a.toolCalls.empty() && m.tokenEvents > 0) {
                any = true;
                const qint64 ev = m.tokenEvents;
                // Each token-bearing event carries at least one token: more events than tokens is impossible.
                const bool tooFew = ev > count && disagree(ev, count);
                // llama-server streams one token per event: far more tokens than events is suspicious.
                const bool tooMany = oneTokenPerEvent && double(count) > 1.5 * double(ev) + 4;
                if (tooFew || tooMany) {
                    bad = true;
                    counted.push_back(double(count));
                    events.push_back(double(ev));
                    addUnique(kinds,
                        tooFew ? QStringLiteral("fewer tokens than streamed events")
                               : QStringLiteral("more tokens than events on a one-token-per-event server"));
                }
            }
            comparable += any ? 1 : 0;
            if (bad) {
                ++mismatched;
                addUnique(tests, r->test);
            }
        }
        // Only large, consistent disagreement: at least two requests and half of those comparable.
        if (mismatched < 2 || mismatched * 2 < comparable)
            continue;
        QString line = QStringLiteral("%1: %2/%3 measured requests (%4)")
                           .arg(ctx.name(e))
                           .arg(mismatched)
                           .arg(comparable)
                           .arg(kinds.join(QStringLiteral(", ")));
        if (!usageN.empty())
            line += QStringLiteral("; median usage.completion_tokens %1 vs timings.predicted_n %2")
                        .arg(median(usageN))
                        .arg(median(timingsN));
        if (!counted.empty())
            line += QStringLiteral("; median completion_tokens %1 vs %2 token-bearing events")
                        .arg(median(counted))
                        .arg(median(events));
        evidence << line;
        involved.push_back(e);
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("token_count_mismatch", Severity::Warning,
        QStringLiteral("The server's token counts disagree with what it streamed"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "decode_tps divides by completion_tokens, so a wrong count makes a wrong rate. Check what the "
            "server counts (reasoning tokens included or not, a proxy rewriting usage, speculative "
            "decoding) before comparing decode rates; the per-request record keeps both numbers."),
        involved, tests));
}

bool cachePromptDisabled(const json& body)
{
    return body.is_object() && body.contains("cache_prompt") && body["cache_prompt"].is_boolean()
        && !body["cache_prompt"].get<bool>();
}

void checkPrefixCache(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList evidence, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        std::set<std::string> seen;
        int withInfo = 0, hits = 0, repeats = 0;
        bool disabled = false;
        std::vector<double> shares, prompts;
        for (const RunRecord* r : ctx.all[std::size_t(e)]) {
            const json& body = r->request.requestBody;
            const bool hasMessages = body.is_object() && body.contains("messages");
            const std::string key = hasMessages ? body["messages"].dump() : std::string();
            const bool repeated = hasMessages ? !seen.insert(key).second : (r->iteration > 1 && r->turn == 1);
            if (r->warmup || !r->request.ok())
                continue;
            disabled = disabled || cachePromptDisabled(body);
            repeats += repeated ? 1 : 0;
            const auto share = cachedShare(*r);
            if (!share)
                continue;
            ++withInfo;
            if (repeated && *share >= kCacheShare) {
                ++hits;
                shares.push_back(*share);
                prompts.push_back(double(*r->request.metrics.promptTokens.value));
                addUnique(tests, r->test);
            }
        }
        if (hits >= 2 && hits * 5 >= withInfo) {
            evidence << QStringLiteral(
                "%1: %2/%3 measured requests repeated an earlier prompt and found %4 of it "
                "cached (median of %5 prompt tokens)")
                            .arg(ctx.name(e))
                            .arg(hits)
                            .arg(withInfo)
                            .arg(fmtPercent(median(shares)))
                            .arg(median(prompts));
            involved.push_back(e);
        } else if (ctx.runtime(e) == Runtime::LlamaServer && withInfo == 0 && repeats >= 2 && !disabled) {
            evidence << QStringLiteral(
                "%1: llama-server caches prompts by default (cache_prompt: true) and %2 "
                "measured requests repeated an earlier prompt, but it reported no cache use "
                "(no timings.cache_n), so cache hits cannot be ruled out")
                            .arg(ctx.name(e))
                            .arg(repeats);
            involved.push_back(e);
        }
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("prefix_cache", Severity::Info,
        QStringLiteral("TTFT of repeated prompts measures a prefix-cache hit, not prefill"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "A cached system prompt and history are realistic for a voice assistant; a cached question "
            "is not. To measure prefill, send {\"cache_prompt\": false} in the endpoint's extra_body "
            "(llama-server), start vLLM with --no-enable-prefix-caching or SGLang with "
            "--disable-radix-cache, or compare run 1 of each test only."),
        involved, tests));
}

void checkSimulated(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList names;
    std::vector<int> involved;
    for (std::size_t i = 0; i < ctx.run.endpoints.size(); ++i) {
        const RunEndpoint& e = ctx.run.endpoints[i];
        if (e.simulated || e.spec.startsWith(QStringLiteral("sim:"))) {
            names << ctx.name(int(i));
            involved.push_back(int(i));
        }
    }
    if (names.isEmpty())
        return;
    out.push_back(make("simulated_endpoints", Severity::Info, QStringLiteral("Numbers are from a simulator"),
        QStringLiteral("%1 %2 simulated: Quantscope's loopback emulator with timing shaped like the seeds' "
                       "measurements; no model ran")
            .arg(names.join(QStringLiteral(", ")),
                names.size() == 1 ? QStringLiteral("is") : QStringLiteral("are")),
        QStringLiteral(
            "Use simulated endpoints to learn the tool; decide on NVFP4 vs Q4_K_M only from real servers."),
        involved));
}

json samplingSettings(const json& body)
{
    json sig = json::object();
    if (!body.is_object())
        return sig;
    for (const char* key : {"max_tokens", "max_completion_tokens", "n_predict", "temperature", "top_p",
             "top_k", "min_p", "typical_p", "seed", "presence_penalty", "frequency_penalty",
             "repetition_penalty", "repeat_penalty", "stop", "n", "ignore_eos", "response_format",
             "tool_choice", "logprobs", "cache_prompt", "stream_options"})
        if (body.contains(key))
            sig[key] = body[key];
    return sig;
}

void checkSettings(const Context& ctx, std::vector<Guardrail>& out)
{
    if (ctx.arms.size() < 2)
        return;
    QStringList tests;
    std::vector<int> involved;
    const QStringList evidence = compareSettingsPerTest(ctx, &samplingSettings, tests, involved);
    if (evidence.isEmpty())
        return;
    out.push_back(make("settings_differ", Severity::Warning,
        QStringLiteral("The arms were sent different sampling or length settings"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "Different max_tokens, temperature or penalties change answer length and content, and so "
            "e2e time, token counts and quality. Remove the difference (usually an endpoint's "
            "extra_body) so that only the quantization differs."),
        involved, tests));
}

void checkConcurrency(const Context& ctx, std::vector<Guardrail>& out)
{
    if (ctx.arms.size() < 2)
        return;
    QStringList evidence, tests;
    std::vector<int> involved;
    for (const QString& test : ctx.tests) {
        std::vector<std::pair<int, std::set<int>>> perArm;
        for (int e : ctx.arms) {
            std::set<int> levels;
            for (const RunRecord* r : ctx.measured[std::size_t(e)])
                if (r->test == test)
                    levels.insert(r->concurrency);
            if (!levels.empty())
                perArm.emplace_back(e, levels);
        }
        QStringList parts;
        bool differs = false;
        for (const auto& [e, levels] : perArm) {
            differs = differs || levels != perArm.front().second;
            QStringList l;
            for (int level : levels)
                l << QString::number(level);
            parts << QStringLiteral("%1 at %2").arg(ctx.name(e), l.join(u'/'));
        }
        if (!differs)
            continue;
        evidence << QStringLiteral("test %1: %2").arg(test, parts.join(QStringLiteral(", ")));
        addUnique(tests, test);
        for (const auto& p : perArm)
            involved.push_back(p.first);
    }
    if (evidence.isEmpty())
        return;
    out.push_back(make("concurrency_differs", Severity::Warning,
        QStringLiteral("The arms were measured at different concurrency"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral("Latency grows with requests in flight; compare arms at the same level only."),
        involved, tests));
}

void checkFailures(const Context& ctx, std::vector<Guardrail>& out)
{
    QStringList evidence, tests;
    std::vector<int> involved;
    for (int e : ctx.arms) {
        const auto& measured = ctx.measured[std::size_t(e)];
        std::map<QString, int> kinds;
        int failed = 0, counted = 0;
        for (const RunRecord* r : measured) {
            const FailureKind k = r->request.failure.kind;
            // Cancelled is the user's doing; tools_not_enabled has its own guardrail.
            if (k == FailureKind::Cancelled || k == FailureKind::ToolsNotEnabled)
                continue;
            ++counted;
            if (k != FailureKind::None) {
                ++failed;
                ++kinds[failureKindId(k)];
                addUnique(tests, r->test);
            }
        }
        if (failed < 2 || double(failed) <= kFailureRate * double(counted))
            continue;
        QStringList k;
        for (const auto& [kind, n] : kinds)
            k << QStringLiteral("%1 %2").arg(kind).arg(n);
        evidence << QStringLiteral("%1: %2/%3 measured requests failed (%4)")
                        .arg(ctx.name(e))
                        .arg(failed)
                        .arg(counted)
                        .arg(k.join(QStringLiteral(", ")));
        involved.push_back(e);
    }
    if (evidence.isEmpty())
        return;
    ctx.sortTests(tests);
    out.push_back(make("failures", Severity::Warning, QStringLiteral("Many requests failed on some arms"),
        evidence.join(QStringLiteral("; ")),
        QStringLiteral(
            "Statistics cover only the requests that succeeded, so a failing arm is summarised by its "
            "survivors. Read each failure's advice in the records, fix the cause and re-run."),
        involved, tests));
}

QString hostKey(const QUrl& url)
{
    const QString h = url.host().toLower();
    if (h == u"localhost" || h.startsWith(QStringLiteral("127.")) || h == u"::1")
        return QStringLiteral("this machine");
    return h;
}

void checkParallelHosts(const Context& ctx, std::vector<Guardrail>& out)
{
    if (ctx.run.settings.order != RunOrder::Parallel || ctx.arms.size() < 2)
        return;
    std::map<QString, std::vector<int>> byHost;
    for (int e : ctx.arms)
        byHost[hostKey(ctx.endpoint(e).endpoint.baseUrl)].push_back(e);
    QStringList evidence;
    std::vector<int> involved;
    for (const auto& [host, arms] : byHost) {
        if (arms.size() < 2)
            continue;
        QStringList names;
        for (int e : arms)
            names << ctx.name(e);
        evidence << QStringLiteral("%1 all run on %2").arg(names.join(QStringLiteral(", ")), host);
        involved.insert(involved.end(), arms.begin(), arms.end());
    }
    if (evidence.isEmpty())
        return;
    out.push_back(make("parallel_same_host", Severity::Warning,
        QStringLiteral("Arms on the same machine ran in parallel"), evidence.join(QStringLiteral("; ")),
        QStringLiteral("Two servers on one GPU (or one host) slow each other down; use the interleaved order "
                       "unless the endpoints are on separate machines."),
        involved));
}

} // namespace

QString severityId(Guardrail::Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return QStringLiteral("info");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Critical:
        return QStringLiteral("critical");
    }
    return QStringLiteral("warning");
}

std::vector<Guardrail> checkGuardrails(const RunResult& result)
{
    const Context ctx(result);
    std::vector<Guardrail> out;
    checkModels(ctx, out);
    checkRuntimes(ctx, out);
    checkThinkingDiffers(ctx, out);
    checkReasoningInTtft(ctx, out);
    checkToolParser(ctx, out);
    checkSettings(ctx, out);
    checkConcurrency(ctx, out);
    checkFewRuns(ctx, out);
    checkColdStart(ctx, out);
    checkEstimatedTokens(ctx, out);
    checkTruncated(ctx, out);
    checkTokenCounts(ctx, out);
    checkFailures(ctx, out);
    checkParallelHosts(ctx, out);
    checkPrefixCache(ctx, out);
    checkSimulated(ctx, out);
    std::stable_sort(out.begin(), out.end(),
        [](const Guardrail& a, const Guardrail& b) { return a.severity > b.severity; });
    return out;
}

nlohmann::json toJson(const Guardrail& g)
{
    json tests = json::array();
    for (const QString& t : g.tests)
        tests.push_back(t.toStdString());
    return {{"id", g.id.toStdString()}, {"severity", severityId(g.severity).toStdString()},
        {"title", g.title.toStdString()}, {"evidence", g.evidence.toStdString()},
        {"advice", g.advice.toStdString()}, {"endpoints", g.endpoints}, {"tests", tests}};
}

nlohmann::json toJson(const std::vector<Guardrail>& guardrails)
{
    json out = json::array();
    for (const Guardrail& g : guardrails)
        out.push_back(toJson(g));
    return out;
}

} // namespace qs
